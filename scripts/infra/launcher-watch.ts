// npm start stops when whoever launched it is gone. npm 11 runs the script as `sh -c "node …"`
// and passes SIGTERM and SIGINT on to that shell only (@npmcli/run-script's signal manager):
// dash, Debian's sh, does not exec the command, dies of the signal, and node lives on, reparented,
// with the whole service. So scripts/start.ts watches its parent and, when npm ran it through a
// shell, npm itself: once either is gone it stops as on SIGTERM.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const WATCH_INTERVAL_MS = 500;
const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ksh", "ash", "busybox"]);

/** /proc/<pid>/stat's fields after the command name (state first, then the parent pid); Linux only. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: read after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** The parent pid of a live process (Linux); undefined when it is gone, a zombie, or there is no /proc. */
export function parentPidOf(pid: number): number | undefined {
  const fields = statFields(pid);
  if (!fields || fields[0] === "Z") return undefined;
  return Number(fields[1]);
}

/** Whether the process runs a shell (Linux; false where there is no /proc). */
function isShell(pid: number): boolean {
  try {
    const [command] = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return SHELLS.has(basename(command ?? ""));
  } catch {
    return false;
  }
}

export interface Launcher {
  /** This process's parent when the watch began. */
  parent: number;
  /** npm's pid, when npm ran this process through a shell (the parent). */
  npm?: number;
}

/** Who launched this process: its parent, and npm above it when the parent is npm's shell. */
export function launcherOf(env: NodeJS.ProcessEnv = process.env): Launcher {
  const parent = process.ppid;
  // npm sets npm_lifecycle_event in the scripts it runs; above a shell of its, the next process is npm.
  const npm = env.npm_lifecycle_event !== undefined && isShell(parent) ? parentPidOf(parent) : undefined;
  return npm === undefined ? { parent } : { parent, npm };
}

/** What is gone of the launcher, as words ("npm (pid 12)"); undefined while it is all there. */
export function launcherGone(launcher: Launcher): string | undefined {
  if (process.ppid !== launcher.parent) return `its parent (pid ${launcher.parent})`;
  // npm gone: its shell, still there, has another parent now.
  if (launcher.npm !== undefined && parentPidOf(launcher.parent) !== launcher.npm) return `npm (pid ${launcher.npm})`;
  return undefined;
}

/**
 * Calls `onGone` once with what is gone, as soon as this process's launcher is (checked every
 * half second): its parent, or npm above a shell. Returns a function that ends the watch.
 */
export function whenLauncherGone(
  onGone: (what: string) => void,
  { intervalMs = WATCH_INTERVAL_MS, env = process.env }: { intervalMs?: number; env?: NodeJS.ProcessEnv } = {},
): () => void {
  const launcher = launcherOf(env);
  const timer = setInterval(() => {
    const gone = launcherGone(launcher);
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, intervalMs);
  // The watch alone keeps nothing running.
  timer.unref();
  return () => clearInterval(timer);
}
