// Keeps a child process of `npm start` running: a process that exits on its own once the service
// is up is started again after a backoff (1s, 2s, 4s... up to 30s; back to 1s after it has run
// for a minute), with a log line each time, while the others keep serving. Before the service is
// up, an exit fails the start instead, so that a wrong setting is reported rather than retried.
import type { ChildProcess } from "node:child_process";
import { stopChild } from "./infra/process.js";

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A process that ran this long before exiting restarts after `initialMs` again. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

/** How long a process may take to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 20_000;

export interface SupervisedProcess {
  readonly name: string;
  /** The running process's id (undefined while it waits to be restarted). */
  pid(): number | undefined;
  restarts(): number;
  /** The service is up: from now on an unexpected exit restarts the process. */
  settle(): void;
  /** Stops the process (its stop signal, then SIGKILL after the grace) and any restart still pending. */
  stop(): Promise<void>;
}

export function supervise(options: {
  name: string;
  spawn: () => ChildProcess;
  say: (line: string) => void;
  /** An exit before settle(): the start fails with this reason. */
  onEarlyExit: (reason: string) => void;
  backoff?: Backoff;
  /** The signal that stops it cleanly: SIGTERM, or SIGINT for PostgreSQL (its fast shutdown). */
  stopSignal?: NodeJS.Signals;
}): SupervisedProcess {
  const { name, say } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let child: ChildProcess | undefined;
  let settled = false;
  let stopping = false;
  let restarts = 0;
  let delay = backoff.initialMs;
  let pending: NodeJS.Timeout | undefined;

  function start() {
    const startedAt = Date.now();
    const current = options.spawn();
    child = current;
    current.once("exit", (code, signal) => {
      if (stopping || child !== current) return;
      child = undefined;
      const reason = `${name} exited unexpectedly (${signal ?? `code ${code}`})`;
      if (!settled) {
        options.onEarlyExit(reason);
        return;
      }
      const ranMs = Date.now() - startedAt;
      delay = ranMs >= backoff.stableMs ? backoff.initialMs : delay;
      say(`${reason} after ${(ranMs / 1000).toFixed(1)}s; restarting it in ${(delay / 1000).toFixed(1)}s`);
      const wait = delay;
      delay = Math.min(delay * 2, backoff.maxMs);
      pending = setTimeout(() => {
        pending = undefined;
        if (stopping) return;
        restarts++;
        start();
        say(`${name} restarted (pid ${child?.pid}, restart ${restarts})`);
      }, wait);
    });
  }

  start();
  return {
    name,
    pid: () => child?.pid,
    restarts: () => restarts,
    settle() {
      settled = true;
    },
    async stop() {
      stopping = true;
      clearTimeout(pending);
      if (child) await stopChild(child, STOP_GRACE_MS, options.stopSignal ?? "SIGTERM");
    },
  };
}
