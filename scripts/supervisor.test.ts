// The supervisor with real child processes: a short Node script that lives until it is killed
// or exits with the code it is told to.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { isProcessAlive, waitFor } from "./infra/process.js";
import { supervise, type SupervisedProcess } from "./supervisor.js";

const FAST = { initialMs: 100, maxMs: 400, stableMs: 60_000 };
const sleeper = () => spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });

describe("supervise", () => {
  const started: SupervisedProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });

  it("restarts a process killed after the service is up, with a log line, and backs off", async () => {
    const lines: string[] = [];
    const worker = supervise({
      name: "worker",
      spawn: sleeper,
      say: (l) => lines.push(l),
      onEarlyExit: () => {},
      backoff: FAST,
    });
    started.push(worker);
    worker.settle();

    for (let round = 1; round <= 4; round++) {
      const pid = worker.pid()!;
      process.kill(pid, "SIGKILL");
      await waitFor("a new worker process", async () => worker.restarts() === round && worker.pid() !== undefined, {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      expect(worker.pid()).not.toBe(pid);
      expect(isProcessAlive(worker.pid()!)).toBe(true);
    }
    // 0.1s, 0.2s, 0.4s, then the ceiling.
    const delays = lines
      .filter((l) => l.startsWith("worker exited unexpectedly (SIGKILL) after "))
      .map((l) => Number(/restarting it in ([\d.]+)s$/.exec(l)?.[1]));
    expect(delays).toEqual([0.1, 0.2, 0.4, 0.4]);
    expect(lines.filter((l) => /^worker restarted \(pid \d+, restart \d\)$/.test(l))).toHaveLength(4);
  });

  it("fails the start instead when the process exits before the service is up", async () => {
    const reasons: string[] = [];
    const api = supervise({
      name: "api",
      spawn: () => spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" }),
      say: () => {},
      onEarlyExit: (reason) => reasons.push(reason),
      backoff: FAST,
    });
    started.push(api);
    await waitFor("the early exit", async () => reasons.length > 0, { timeoutMs: 10_000, intervalMs: 20 });
    expect(reasons).toEqual(["api exited unexpectedly (code 3)"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(api.restarts()).toBe(0);
  });

  it("stop() ends the process and a restart still pending", async () => {
    const worker = supervise({ name: "worker", spawn: sleeper, say: () => {}, onEarlyExit: () => {}, backoff: FAST });
    worker.settle();
    const first = worker.pid()!;
    process.kill(first, "SIGKILL");
    await waitFor("the exit", async () => worker.pid() === undefined, { timeoutMs: 10_000, intervalMs: 10 });
    await worker.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(worker.restarts()).toBe(0);
    expect(worker.pid()).toBeUndefined();

    const second = supervise({ name: "api", spawn: sleeper, say: () => {}, onEarlyExit: () => {}, backoff: FAST });
    second.settle();
    const pid = second.pid()!;
    await second.stop();
    expect(isProcessAlive(pid)).toBe(false);
  });

  it("stops a process with the signal it is given (PostgreSQL's fast shutdown is SIGINT)", async () => {
    const children: ChildProcess[] = [];
    const postgres = supervise({
      name: "postgres",
      spawn: () => {
        const child = sleeper();
        children.push(child);
        return child;
      },
      say: () => {},
      onEarlyExit: () => {},
      stopSignal: "SIGINT",
    });
    postgres.settle();
    await postgres.stop();
    expect(children.map((child) => child.signalCode)).toEqual(["SIGINT"]);
  });
});
