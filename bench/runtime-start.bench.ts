// npm run bench:runtime [-- --runs N]: the API and the worker started as development runs them
// (TypeScript through tsx; the worker bundles its workflows at start) and as production does (the
// JavaScript of npm run build, the prebuilt workflow bundle): time from spawn to ready (the API's
// /readyz answers 200, the worker logs "worker started") and resident memory then (VmRSS).
// Needs dist/ (npm run build); runs against a dev server and database of its own.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { projectRoot } from "../scripts/infra/paths.js";
import { freePort, stopChild, waitFor } from "../scripts/infra/process.js";
import { cleanEnv, spawnNode, type Spawned } from "../test/helpers/processes.js";
import { benchDatabase, median } from "./helpers/database.js";
import { benchEncryptionKey, benchTemporal } from "./helpers/fixtures.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Math.min(Math.max(Number(values.runs) || 3, 1), 10);

const ENTRIES = {
  api: { tsx: ["--import", "tsx", "api/server.ts"], compiled: ["dist/api/server.js"] },
  worker: { tsx: ["--import", "tsx", "worker/main.ts"], compiled: ["dist/worker/main.js"] },
} as const;
type Role = keyof typeof ENTRIES;
type Runtime = "tsx" | "compiled";

if (!existsSync(path.join(projectRoot, "dist", "worker", "workflows.bundle.js"))) {
  throw new Error("dist/ is missing: npm run build first");
}

/** Resident memory of a live process, in MB (Linux). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : NaN;
}

async function untilReady(role: Role, process: Spawned, port: number): Promise<void> {
  if (role === "worker") return process.waitForOutput(/"worker started"/, 180_000);
  await waitFor(
    "the API to be ready",
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok,
    {
      timeoutMs: 180_000,
      intervalMs: 50,
      abort: () => (process.child.exitCode !== null ? `the API exited:\n${process.output()}` : undefined),
    },
  );
}

const db = await benchDatabase();
const temporal = await benchTemporal();
const results: Array<{ role: Role; runtime: Runtime; readyMs: number; rssMb: number }> = [];
try {
  for (let i = 0; i < runs; i++) {
    for (const role of Object.keys(ENTRIES) as Role[]) {
      for (const runtime of ["tsx", "compiled"] as const) {
        const port = await freePort();
        const env = cleanEnv({
          NODE_ENV: "production",
          DATABASE_URL: db.url,
          TEMPORAL_ADDRESS: temporal.address,
          SVC_ENCRYPTION_KEY: benchEncryptionKey,
          PORT: String(port),
          LOG_LEVEL: "info",
        });
        const started = performance.now();
        const child = spawnNode([...ENTRIES[role][runtime]], env);
        try {
          await untilReady(role, child, port);
          results.push({ role, runtime, readyMs: performance.now() - started, rssMb: rssMb(child.child.pid!) });
        } finally {
          await stopChild(child.child, 30_000);
        }
      }
    }
  }
} finally {
  await temporal.stop();
  await db.close();
}

console.log(
  `Start to ready and RSS at ready, median of ${runs} run(s) each (a shared machine: compare, do not quote alone)`,
);
console.table(
  (["api", "worker"] as const).flatMap((role) =>
    (["tsx", "compiled"] as const).map((runtime) => {
      const mine = results.filter((r) => r.role === role && r.runtime === runtime);
      return {
        process: role,
        runtime,
        "ready (s)": (median(mine.map((r) => r.readyMs)) / 1000).toFixed(2),
        "RSS (MB)": median(mine.map((r) => r.rssMb)).toFixed(0),
        "ready, each run (s)": mine.map((r) => (r.readyMs / 1000).toFixed(1)).join(" "),
      };
    }),
  ),
);
