// The real Temporal server (`cmd/server`) and its SQL schema tool (`cmd/tools/sql`), built with Go
// from the Go module proxy into .tools/temporal-server/<version>/. The module is pinned by its
// go.sum hash: its own go.sum pins every dependency, so the build cannot change under us. A build
// is kept with a stamp naming the module hash and each binary's SHA-256: a later start finds the
// binaries as built and builds nothing. A cold build takes minutes on two cores (Go's build cache
// makes a later one, for another checkout, take well under one).
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { toolsDir } from "./paths.js";
import { findOnPath, isExecutable, run } from "./process.js";

export const TEMPORAL_SERVER_MODULE = "go.temporal.io/server";
// v1.32.2 needs Go 1.26.10; v1.32.1 builds with the machines' Go 1.26.8.
export const TEMPORAL_SERVER_VERSION = "v1.32.1";
/** The module's go.sum hash (`go mod download -json` prints it as Sum). */
export const TEMPORAL_SERVER_MODULE_SUM = "h1:grI5B5cBEMRJnDzGKtsxQRQpsNPisej1B6WgVksc9EM=";

/** The two binaries: the server and the schema tool, by their package in the module. */
const BINARIES = {
  server: { pkg: "cmd/server", built: "server", file: "temporal-server" },
  sqlTool: { pkg: "cmd/tools/sql", built: "sql", file: "temporal-sql-tool" },
} as const;

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  version: string;
}

interface BuildStamp {
  module: string;
  version: string;
  sum: string;
  sha256: Record<keyof typeof BINARIES, string>;
  goVersion: string;
  buildSeconds: number;
}

type Log = (line: string) => void;

/** Where a version's binaries live. */
export const temporalServerDir = (version = TEMPORAL_SERVER_VERSION) => toolsDir("temporal-server", version);

const binaryPaths = (dir: string): TemporalServerBinaries => ({
  server: path.join(dir, BINARIES.server.file),
  sqlTool: path.join(dir, BINARIES.sqlTool.file),
  version: path.basename(dir),
});

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/**
 * The binaries of `dir` when its stamp names the pinned module hash and each binary still has the
 * SHA-256 it was built with; undefined otherwise (missing, half-written, another version).
 */
export async function builtBinaries(
  dir: string,
  sum: string = TEMPORAL_SERVER_MODULE_SUM,
): Promise<TemporalServerBinaries | undefined> {
  const stampFile = path.join(dir, "build.json");
  if (!existsSync(stampFile)) return undefined;
  let stamp: BuildStamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8")) as BuildStamp;
  } catch {
    return undefined;
  }
  if (stamp.sum !== sum) return undefined;
  const binaries = binaryPaths(dir);
  for (const key of Object.keys(BINARIES) as Array<keyof typeof BINARIES>) {
    const file = binaries[key];
    if (!isExecutable(file) || (await sha256Of(file)) !== stamp.sha256?.[key]) return undefined;
  }
  return binaries;
}

/** Downloads the pinned module and refuses it unless its hash is the pinned one. */
async function downloadPinnedModule(go: string, env: NodeJS.ProcessEnv): Promise<void> {
  const ref = `${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`;
  const { stdout } = await run(go, ["mod", "download", "-json", ref], { env, timeoutMs: 20 * 60_000 });
  const info = JSON.parse(stdout) as { Sum?: string; Error?: string };
  if (info.Error) throw new Error(`go mod download ${ref}: ${info.Error}`);
  if (info.Sum !== TEMPORAL_SERVER_MODULE_SUM) {
    throw new Error(`${ref} has hash ${info.Sum}, not the pinned ${TEMPORAL_SERVER_MODULE_SUM}: refusing to build it`);
  }
}

/** Builds both binaries into a scratch folder beside `dir`, then moves them in with their stamp. */
async function buildInto(dir: string, go: string, env: NodeJS.ProcessEnv, log: Log): Promise<TemporalServerBinaries> {
  const goEnv = { ...env, CGO_ENABLED: "0" };
  const started = Date.now();
  await downloadPinnedModule(go, goEnv);
  const scratch = `${dir}.building-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const packages = Object.values(BINARIES).map(
      ({ pkg }) => `${TEMPORAL_SERVER_MODULE}/${pkg}@${TEMPORAL_SERVER_VERSION}`,
    );
    await run(go, ["install", ...packages], { env: { ...goEnv, GOBIN: scratch }, timeoutMs: 60 * 60_000 });
    const buildSeconds = Math.round((Date.now() - started) / 100) / 10;
    const sha256 = {} as BuildStamp["sha256"];
    for (const [key, { built, file }] of Object.entries(BINARIES) as Array<
      [keyof typeof BINARIES, (typeof BINARIES)[keyof typeof BINARIES]]
    >) {
      renameSync(path.join(scratch, built), path.join(scratch, file));
      sha256[key] = await sha256Of(path.join(scratch, file));
    }
    const goVersion = (await run(go, ["env", "GOVERSION"], { env })).stdout.trim();
    const stamp: BuildStamp = {
      module: TEMPORAL_SERVER_MODULE,
      version: TEMPORAL_SERVER_VERSION,
      sum: TEMPORAL_SERVER_MODULE_SUM,
      sha256,
      goVersion,
      buildSeconds,
    };
    writeFileSync(path.join(scratch, "build.json"), `${JSON.stringify(stamp, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    renameSync(scratch, dir);
    log(`Built the Temporal server ${TEMPORAL_SERVER_VERSION} and its schema tool in ${buildSeconds} s (${goVersion})`);
    return binaryPaths(dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The pinned server and schema tool from .tools, built with Go when missing (or not as
 * stamped). Needs Go on PATH only for that build.
 */
export async function locateTemporalServer(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = () => {},
): Promise<TemporalServerBinaries> {
  const dir = temporalServerDir();
  const built = await builtBinaries(dir);
  if (built) return built;
  const go = findOnPath("go", env.PATH);
  if (!go) {
    throw new Error(
      `The Temporal server ${TEMPORAL_SERVER_VERSION} is not built in ${dir} and Go is not on PATH to build it: ` +
        "install Go (the version the module's go.mod names, or newer)",
    );
  }
  log(
    `Building the Temporal server ${TEMPORAL_SERVER_VERSION} (${TEMPORAL_SERVER_MODULE}) with Go into ${dir}: ` +
      "several minutes on two cores the first time, seconds once Go's build cache has it...",
  );
  return buildInto(dir, go, env, log);
}
