// The dashboard's build (web/ → web/dist), made only when it is missing or older than its sources.
// npm start and the browser test call buildDashboardWhenStale; `npm run web:build` builds always.
// Without Vite (a production install: npm ci --omit=dev, the Docker image) a prebuilt web/dist is
// used as it is.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { DASHBOARD_DIST } from "../api/http/dashboard-dist.js";
import { projectRoot } from "./infra/paths.js";
import { run, sleep } from "./infra/process.js";

export const webDir = path.join(projectRoot, "web");
/** The folder the API serves (api/http/dashboard.ts): the build goes where it is read. */
export const webDist = DASHBOARD_DIST;

/** Where the dashboard's sources, its build and the build tool are; tests and benchmarks point them elsewhere. */
export interface DashboardPaths {
  webDir: string;
  dist: string;
  /** Vite's command-line entry (absent in a production install). */
  vite: string;
  /** What the build reads besides web/ itself: a changed dependency changes the bundle. */
  extraSources: string[];
}

export const PROJECT: DashboardPaths = {
  webDir,
  dist: webDist,
  vite: path.join(projectRoot, "node_modules", "vite", "bin", "vite.js"),
  extraSources: [path.join(projectRoot, "package-lock.json")],
};
/** Under web/, what is not a source of the bundle. */
const NOT_SOURCES = new Set(["dist", "e2e", "node_modules", ".screenshots", ".build-lock"]);
const MAX_FILES = 5_000;

/** The newest modification time among the dashboard's sources (bounded walk). */
export function newestSourceTime(paths: DashboardPaths = PROJECT): number {
  let newest = 0;
  let seen = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (++seen > MAX_FILES) throw new Error(`web/ has more than ${MAX_FILES} files: is a build output inside it?`);
      if (NOT_SOURCES.has(entry.name) || entry.name.startsWith(".dist-")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(paths.webDir);
  for (const file of paths.extraSources) if (existsSync(file)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

/** Why the build must be made again, or undefined when web/dist is current. */
export function staleReason(paths: DashboardPaths = PROJECT): string | undefined {
  const index = path.join(paths.dist, "index.html");
  if (!existsSync(index)) return "no build yet";
  return newestSourceTime(paths) > statSync(index).mtimeMs ? "sources changed since the last build" : undefined;
}

/**
 * Builds web/ with Vite into a fresh folder and swaps it in, so that a serving API never sees a
 * half-written build.
 */
export async function buildDashboard(paths: DashboardPaths = PROJECT): Promise<void> {
  const { vite, dist } = paths;
  if (!existsSync(vite)) throw new Error("Vite is not installed (it is a devDependency: run npm ci)");
  // Staged beside the build, so that the swap below is a rename within one file system.
  const staging = path.join(path.dirname(dist), `.dist-${process.pid}-${Date.now()}`);
  try {
    await run(
      process.execPath,
      [vite, "build", paths.webDir, "--outDir", staging, "--emptyOutDir", "--logLevel", "warn"],
      {
        cwd: projectRoot,
        // A production bundle whatever the caller's NODE_ENV (vitest sets "test": React's dev build).
        env: { ...process.env, NODE_ENV: "production" },
        timeoutMs: 300_000,
      },
    );
    const old = `${dist}.old-${process.pid}`;
    if (existsSync(dist)) renameSync(dist, old);
    renameSync(staging, dist);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

const LOCK_WAIT_MS = 300_000;
/** No build takes this long: a lock this old is stale whoever holds it. */
const LOCK_STALE_MS = 600_000;

/** Whether the process that took the lock still runs (a killed build leaves its lock behind). */
function lockHolderAlive(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(lockDir, "pid"), "utf8"));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists under another user. No pid file yet: it is being taken right now.
    const code = (error as NodeJS.ErrnoException).code;
    return code === "EPERM" || (code === "ENOENT" && Date.now() - statSync(lockDir).mtimeMs < 5_000);
  }
}

/** One build at a time across processes (npm start and a test run may both find the build stale). */
async function withBuildLock<T>(paths: DashboardPaths, body: () => Promise<T>): Promise<T> {
  const lockDir = path.join(paths.webDir, ".build-lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (Date.now() > deadline) throw new Error(`another dashboard build holds ${lockDir}`);
      let stale = false;
      try {
        stale = !lockHolderAlive(lockDir) || Date.now() - statSync(lockDir).mtimeMs > LOCK_STALE_MS;
      } catch {
        continue; // released meanwhile
      }
      if (stale) rmSync(lockDir, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    return await body();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/**
 * Builds the dashboard when it is missing or stale; throws when the build fails. Without Vite, a
 * build that exists is served as it is ("prebuilt"): a production install never builds.
 */
export async function ensureDashboard(
  say: (line: string) => void = console.log,
  paths: DashboardPaths = PROJECT,
): Promise<"current" | "built" | "prebuilt"> {
  const stale = staleReason(paths);
  if (!stale) return "current";
  if (existsSync(path.join(paths.dist, "index.html")) && !existsSync(paths.vite)) {
    say(`serving the dashboard's existing build (${stale}, and Vite, a devDependency, is not installed)`);
    return "prebuilt";
  }
  return withBuildLock(paths, async () => {
    // Another process may have built it while this one waited.
    const reason = staleReason(paths);
    if (!reason) return "current";
    const started = Date.now();
    say(`building the dashboard (${reason})`);
    await buildDashboard(paths);
    say(`dashboard built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return "built";
  });
}

/**
 * npm start's step: the dashboard built when it is missing or stale. Never throws: the API works
 * without it, so a failed build is reported (`say`) and start-up goes on.
 */
export async function buildDashboardWhenStale(
  say: (line: string) => void = console.log,
  paths: DashboardPaths = PROJECT,
): Promise<boolean> {
  try {
    await ensureDashboard(say, paths);
    return true;
  } catch (error) {
    say(`the dashboard was not built: ${(error as Error).message}`);
    return false;
  }
}

/**
 * What a first visit loads before any route's own chunk: index.html's entry script, the chunks it
 * preloads, and its stylesheets, with their gzip sizes (the figure the dashboard's budget is about).
 */
export function firstLoad(dist = webDist) {
  const html = readFileSync(path.join(dist, "index.html"), "utf8");
  const refs = [...html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="\/([^"]+)"[^>]*>/g)].map((m) => m[1]!);
  const files = refs.map((ref) => {
    const content = readFileSync(path.join(dist, ref));
    return { file: ref, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  });
  const sum = (ext: string) => files.filter((f) => f.file.endsWith(ext)).reduce((n, f) => n + f.gzipBytes, 0);
  return { files, jsGzipBytes: sum(".js"), cssGzipBytes: sum(".css") };
}
