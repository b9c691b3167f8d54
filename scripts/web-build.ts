// The dashboard's build (web/ → web/dist), made only when it is missing or older than its sources.
// npm start and the browser test call buildDashboardWhenStale; `npm run web:build` builds always.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../lib/infra/paths.js";
import { run } from "../lib/infra/process.js";

export const webDir = path.join(projectRoot, "web");
export const webDist = path.join(webDir, "dist");

/** What the build reads besides web/ itself: a changed dependency changes the bundle. */
const EXTRA_SOURCES = [path.join(projectRoot, "package-lock.json")];
/** Under web/, what is not a source of the bundle. */
const NOT_SOURCES = new Set(["dist", "e2e", "node_modules", ".screenshots"]);
const MAX_FILES = 5_000;

/** The newest modification time among the dashboard's sources (bounded walk). */
export function newestSourceTime(): number {
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
  walk(webDir);
  for (const file of EXTRA_SOURCES) if (existsSync(file)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

/** Why the build must be made again, or undefined when web/dist is current. */
export function staleReason(): string | undefined {
  const index = path.join(webDist, "index.html");
  if (!existsSync(index)) return "no build yet";
  return newestSourceTime() > statSync(index).mtimeMs ? "sources changed since the last build" : undefined;
}

/**
 * Builds web/ with Vite into a fresh folder and swaps it in, so that a serving API never sees a
 * half-written build.
 */
export async function buildDashboard(): Promise<void> {
  const vite = path.join(projectRoot, "node_modules", "vite", "bin", "vite.js");
  if (!existsSync(vite)) throw new Error("Vite is not installed (it is a devDependency: run npm ci)");
  const staging = path.join(webDir, `.dist-${process.pid}-${Date.now()}`);
  try {
    await run(process.execPath, [vite, "build", webDir, "--outDir", staging, "--emptyOutDir", "--logLevel", "warn"], {
      cwd: projectRoot,
      timeoutMs: 300_000,
    });
    const old = `${webDist}.old-${process.pid}`;
    if (existsSync(webDist)) renameSync(webDist, old);
    renameSync(staging, webDist);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Builds the dashboard when it is missing or stale. Never throws: the API works without it, so a
 * failed build is reported (`say`) and start-up goes on.
 */
export async function buildDashboardWhenStale(say: (line: string) => void = console.log): Promise<boolean> {
  try {
    const reason = staleReason();
    if (!reason) return true;
    const started = Date.now();
    say(`building the dashboard (${reason})`);
    await buildDashboard();
    say(`dashboard built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return true;
  } catch (error) {
    say(`the dashboard was not built: ${(error as Error).message}`);
    return false;
  }
}
