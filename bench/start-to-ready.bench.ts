// npm run bench:start [-- --runs N]: time from `npm start` to "ready" (API /readyz 200 and the worker
// polling), first on an empty data directory, then warm over the same data, and the time to stop;
// then what the dashboard adds to a start: the check of a current web/dist, and a build when it is
// stale (made into a scratch folder: web/dist is left as it is).
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../scripts/infra/process.js";
import { median } from "./helpers/database.js";
import { buildDashboardWhenStale, PROJECT, staleReason, type DashboardPaths } from "../scripts/web-build.js";
import { cleanEnv, spawnEntry } from "../test/helpers/processes.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Math.min(Math.max(Number(values.runs) || 3, 1), 20);

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-start-"));
chmodSync(dataDir, 0o711);
const env = cleanEnv({
  SVC_DATA_DIR: dataDir,
  PORT: String(await freePort()),
  TEMPORAL_DEV_PORT: String(await freePort()),
  TEMPORAL_DEV_UI_PORT: String(await freePort()),
  LOG_LEVEL: "warn",
});

const results: Array<{ run: string; readyMs: number; stopMs: number }> = [];
try {
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const service = spawnEntry("scripts/start.ts", [], env);
    await service.waitForOutput(/press Ctrl-C to stop/, 300_000);
    const readyMs = performance.now() - started;
    const stopping = performance.now();
    service.child.kill("SIGTERM");
    const { code } = await service.exited;
    if (code !== 0) throw new Error(`start exited with ${code}:\n${service.output()}`);
    results.push({
      run: i === 0 ? "cold (empty data dir)" : `warm #${i}`,
      readyMs,
      stopMs: performance.now() - stopping,
    });
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

console.log("npm start: start-to-ready and stop times");
console.table(
  results.map((r) => ({
    run: r.run,
    "ready (s)": (r.readyMs / 1000).toFixed(1),
    "stop (s)": (r.stopMs / 1000).toFixed(1),
  })),
);

const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-bench-dashboard-"));
try {
  const paths: DashboardPaths = { ...PROJECT, dist: path.join(scratch, "dist") };
  const buildStarted = performance.now();
  if (!(await buildDashboardWhenStale(() => undefined, paths))) throw new Error("the dashboard did not build");
  const buildMs = performance.now() - buildStarted;
  const checks: number[] = [];
  for (let i = 0; i < 21; i++) {
    const checked = performance.now();
    if (staleReason(paths) !== undefined) throw new Error("a fresh build reads as stale");
    checks.push(performance.now() - checked);
  }
  console.log("npm start: what the dashboard adds");
  console.table([
    { case: "web/dist current (staleness check, median of 21)", "time (ms)": median(checks).toFixed(1) },
    { case: "web/dist missing or stale (vite build)", "time (ms)": buildMs.toFixed(0) },
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
