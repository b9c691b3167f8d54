import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtBinaries, TEMPORAL_SERVER_MODULE_SUM, TEMPORAL_SERVER_VERSION } from "./temporal-server.js";

describe("the Temporal server's build in .tools", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A folder as a build leaves it: two executables and a stamp naming their hashes. */
  function builtFolder(stamp: { sum?: string } = {}) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "svc-temporal-server-"));
    dirs.push(dir);
    const sha256: Record<string, string> = {};
    for (const [key, file] of [
      ["server", "temporal-server"],
      ["sqlTool", "temporal-sql-tool"],
    ] as const) {
      const content = `#!/bin/sh\necho ${key}\n`;
      writeFileSync(path.join(dir, file), content);
      chmodSync(path.join(dir, file), 0o755);
      sha256[key] = createHash("sha256").update(content).digest("hex");
    }
    const written = { version: TEMPORAL_SERVER_VERSION, sum: TEMPORAL_SERVER_MODULE_SUM, sha256, ...stamp };
    writeFileSync(path.join(dir, "build.json"), JSON.stringify(written));
    return dir;
  }

  it("finds the binaries a build stamped for the pinned module", async () => {
    const dir = builtFolder();
    expect(await builtBinaries(dir)).toEqual({
      server: path.join(dir, "temporal-server"),
      sqlTool: path.join(dir, "temporal-sql-tool"),
      version: path.basename(dir),
    });
  });

  it("builds again when a binary changed, the stamp names another module hash, or there is no stamp", async () => {
    const changed = builtFolder();
    writeFileSync(path.join(changed, "temporal-sql-tool"), "#!/bin/sh\necho half-written\n");
    expect(await builtBinaries(changed)).toBeUndefined();

    expect(await builtBinaries(builtFolder({ sum: "h1:another-version" }))).toBeUndefined();

    const unstamped = builtFolder();
    rmSync(path.join(unstamped, "build.json"));
    expect(await builtBinaries(unstamped)).toBeUndefined();
  });
});
