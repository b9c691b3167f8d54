// What `npm start` and `npm run start:cluster` share: the processes a start supervises, its one
// shutdown (by tiers: the API and workers together, then Temporal, then the database; then the
// clean-ups it was given), a failure that stops the start with its first reason, the signals that
// stop everything (SIGHUP too: closing the terminal must not leave PostgreSQL or Temporal running
// in process groups of their own), and the Node entry points started as supervised children.
import { spawn, type ChildProcess } from "node:child_process";
import { execPath } from "node:process";
import { projectRoot } from "./infra/paths.js";
import { supervise, type SupervisedProcess } from "./supervisor.js";

/** The order of the stop: every process of a tier stops together, tiers one after the other. */
export type StopTier = "service" | "temporal" | "database";
const STOP_ORDER: StopTier[] = ["service", "temporal", "database"];

export interface ChildOptions {
  tier: StopTier;
  /** The signal that stops it cleanly: SIGTERM, or SIGINT for PostgreSQL (its fast shutdown). */
  stopSignal?: NodeJS.Signals;
  /** The end of its output, told with an exit before the service is up. */
  explain?: () => string;
}

export interface ServiceLaunch {
  /** A line for the person at the terminal, prefixed with the label and the time since the start. */
  say(line: string): void;
  /** Seconds since the start, as said. */
  elapsed(): string;
  /** "stopped" once the shutdown began: the abort of every wait of the start. */
  stopped(): "stopped" | undefined;
  /** Stops the start with its first reason (later ones are only the waits it aborted), exit code 1. */
  fail(message: string): Promise<never>;
  /** Stops everything once, by tiers, runs the clean-ups, then exits with `exitCode`. */
  shutdown(exitCode: number): Promise<never>;
  /** Runs after every process stopped, in the order given (a lock released last, say). */
  afterStop(cleanUp: () => unknown): void;
  /** Supervises a child (each process it spawns goes to the launch's `onSpawn`). */
  superviseChild(name: string, spawnChild: () => ChildProcess, options: ChildOptions): SupervisedProcess;
  /** A TypeScript entry point of the service (the API, a worker) as a supervised process of the service tier. */
  startNodeProcess(name: string, entry: string, env: NodeJS.ProcessEnv): SupervisedProcess;
  /** Every supervised process: the infrastructure's, then the service's. */
  processes(): SupervisedProcess[];
}

export function launchService(options: {
  /** "svc" or "cluster": the lines' prefix. */
  label: string;
  /** Each process spawned, with its stop signal (npm start records them in its service file). */
  onSpawn?: (name: string, child: ChildProcess, stopSignal?: NodeJS.Signals) => void;
}): ServiceLaunch {
  const startedAt = Date.now();
  const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
  const say = (line: string) => process.stdout.write(`[${options.label} ${elapsed()}] ${line}\n`);
  const tiers = new Map<StopTier, SupervisedProcess[]>(STOP_ORDER.map((tier) => [tier, []]));
  const cleanUps: (() => unknown)[] = [];
  let shuttingDown: Promise<never> | undefined;

  const processes = () => [...tiers.get("database")!, ...tiers.get("temporal")!, ...tiers.get("service")!];

  function shutdown(exitCode: number): Promise<never> {
    shuttingDown ??= (async () => {
      const any = processes().length > 0;
      if (any) say("stopping...");
      for (const tier of STOP_ORDER) {
        await Promise.all(
          tiers
            .get(tier)!
            .map((managed) =>
              managed.stop().catch((error: Error) => say(`${managed.name} did not stop cleanly: ${error.message}`)),
            ),
        );
      }
      for (const cleanUp of cleanUps) await cleanUp();
      if (any) say("stopped");
      process.exit(exitCode);
    })();
    return shuttingDown;
  }

  function fail(message: string): Promise<never> {
    if (!shuttingDown) process.stderr.write(`[${options.label}] ${message}\n`);
    return shutdown(1);
  }

  function superviseChild(name: string, spawnChild: () => ChildProcess, child: ChildOptions): SupervisedProcess {
    const managed = supervise({
      name,
      spawn: () => {
        const spawned = spawnChild();
        options.onSpawn?.(name, spawned, child.stopSignal);
        return spawned;
      },
      say,
      stopSignal: child.stopSignal,
      onEarlyExit: (reason) => void fail(child.explain ? `${reason}: ${child.explain()}` : reason),
    });
    tiers.get(child.tier)!.push(managed);
    return managed;
  }

  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(0));

  return {
    say,
    elapsed,
    stopped: () => (shuttingDown ? "stopped" : undefined),
    fail,
    shutdown,
    afterStop: (cleanUp) => void cleanUps.push(cleanUp),
    superviseChild,
    startNodeProcess: (name, entry, env) => superviseChild(name, () => spawnEntry(entry, env), { tier: "service" }),
    processes,
  };
}

/** A TypeScript entry point of the service as a child of the start. */
function spawnEntry(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(execPath, ["--import", "tsx", entry], {
    cwd: projectRoot,
    env,
    // Their output is ours, not piped through us: human lines at a terminal, JSON elsewhere
    // (lib/logger.ts), still written after the start is gone. The IPC channel closes when the
    // start dies, however it dies: the child then stops (lib/parent-watch.ts).
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    // Own process group: a terminal's Ctrl-C reaches us, and we stop the children in order.
    detached: true,
  });
}
