import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createLogger } from "./logger.js";
import { parseConfig } from "./config.js";
import { createRunEndListener, RUN_END_LISTENER_NAME, RUN_ENDED_CHANNEL } from "./run-end-notices.js";

const databaseUrl = inject("databaseUrl");
const logger = createLogger(parseConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" }), "test");
const admin = new pg.Client({ connectionString: databaseUrl });
const announce = (id: string) => admin.query("SELECT pg_notify($1, $2)", [RUN_ENDED_CHANNEL, id]);

beforeAll(() => admin.connect());
afterAll(() => admin.end());

/** A run record in memory: `read` counts how often the waiter looked at it. */
function fakeRun() {
  const run = { status: "running", reads: 0 };
  return {
    run,
    read: async () => ({ status: (run.reads++, run.status) }),
    ended: (r: { status: string }) => r.status !== "running",
  };
}

describe("run end notices", () => {
  it("wakes the waiter of that run when its end is announced, with no reads in between", async () => {
    const listener = createRunEndListener({ databaseUrl, logger });
    try {
      const { run, read, ended } = fakeRun();
      const started = Date.now();
      const waiting = listener.waitForEnd("run_a", 20_000, read, ended);
      await expect.poll(() => run.reads).toBe(1);
      // Another run's end does not concern this waiter.
      await announce("run_other");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(run.reads).toBe(1);
      run.status = "success";
      await announce("run_a");
      await expect(waiting).resolves.toEqual({ status: "success" });
      expect(run.reads).toBe(2);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await listener.close();
    }
  });

  it("answers at once for a run that ended before the wait, and with the last read when time runs out", async () => {
    const listener = createRunEndListener({ databaseUrl, logger });
    try {
      const done = fakeRun();
      done.run.status = "failed";
      await expect(listener.waitForEnd("run_b", 20_000, done.read, done.ended)).resolves.toEqual({ status: "failed" });
      expect(done.run.reads).toBe(1);

      const slow = fakeRun();
      const started = Date.now();
      await expect(listener.waitForEnd("run_c", 400, slow.read, slow.ended)).resolves.toEqual({ status: "running" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
      expect(slow.run.reads).toBe(2);
    } finally {
      await listener.close();
    }
  });

  it("stops waiting once its signal aborts, answering the last read (read then when none was)", async () => {
    const listener = createRunEndListener({ databaseUrl, logger });
    try {
      const { run, read, ended } = fakeRun();
      const gone = new AbortController();
      const watch = await listener.watch("run_gone");
      // A fresh watch reads nothing until woken: the abort wakes it, and it reads once.
      const waiting = watch.until(600_000, read, ended, { fresh: true, signal: gone.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(run.reads).toBe(0);
      gone.abort();
      await expect(waiting).resolves.toEqual({ status: "running" });
      expect(run.reads).toBe(1);

      // Aborted while sleeping after a read: answers that read without reading again.
      const later = new AbortController();
      const again = watch.until(600_000, read, ended, { signal: later.signal });
      await expect.poll(() => run.reads).toBe(2);
      later.abort();
      await expect(again).resolves.toEqual({ status: "running" });
      expect(run.reads).toBe(2);
      watch.close();
    } finally {
      await listener.close();
    }
  });

  it("reads again after its connection is lost and restored, so an end announced meanwhile is not missed", async () => {
    const applicationName = `${RUN_END_LISTENER_NAME} ${process.pid}`;
    const listener = createRunEndListener({ databaseUrl, logger, applicationName });
    try {
      const { run, read, ended } = fakeRun();
      const waiting = listener.waitForEnd("run_d", 30_000, read, ended);
      await expect.poll(() => run.reads).toBe(1);
      // The run ends while nobody listens: the announcement is lost with the connection.
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [applicationName],
      );
      expect(killed.rowCount).toBeGreaterThanOrEqual(1);
      run.status = "success";
      await expect(waiting).resolves.toEqual({ status: "success" });
      expect(run.reads).toBe(2);
    } finally {
      await listener.close();
    }
  });

  it("watched from before its start, reads a run only once its end is announced, or takes the record handed over", async () => {
    const listener = createRunEndListener({ databaseUrl, logger });
    try {
      // Announced: one read, after the notice.
      const announced = fakeRun();
      const watch = await listener.watch("run_e");
      const waiting = watch.until(20_000, announced.read, announced.ended, { fresh: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(announced.run.reads).toBe(0);
      announced.run.status = "success";
      await announce("run_e");
      await expect(waiting).resolves.toEqual({ status: "success" });
      expect(announced.run.reads).toBe(1);
      watch.close();

      // Ended by this process: no read of the run at all, the handed record is the answer, and the
      // notice of the same end, coming after it, reads nothing either. (A notice that comes before
      // the hand-over is read, as a notice from another process is: the order is not guaranteed.)
      const handedReads: unknown[] = [];
      const handedWatch = await listener.watch("run_f");
      const handedWait = handedWatch.until(
        20_000,
        async (handed) => (handedReads.push(handed), handed ?? { status: "running" }),
        (value) => (value as { status: string }).status !== "running",
        { fresh: true },
      );
      listener.handOver("run_f", { status: "success", output: 42 });
      await announce("run_f");
      await expect(handedWait).resolves.toEqual({ status: "success", output: 42 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(handedReads).toEqual([{ status: "success", output: 42 }]);
      handedWatch.close();

      // An end announced between the watch and the wait is not missed.
      const early = fakeRun();
      const earlyWatch = await listener.watch("run_g");
      early.run.status = "failed";
      await announce("run_g");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(earlyWatch.until(20_000, early.read, early.ended, { fresh: true })).resolves.toEqual({
        status: "failed",
      });
      expect(early.run.reads).toBe(1);
      earlyWatch.close();

      // Not announced in time: the run as it is when the time is up, read once.
      const slow = fakeRun();
      const slowWatch = await listener.watch("run_h");
      await expect(slowWatch.until(300, slow.read, slow.ended, { fresh: true })).resolves.toEqual({
        status: "running",
      });
      expect(slow.run.reads).toBe(1);
      slowWatch.close();
    } finally {
      await listener.close();
    }
  });

  it("reads first when it could not listen from the start (the database down), so a fresh run is not waited out blind", async () => {
    const listener = createRunEndListener({ databaseUrl: "postgresql://nobody:none@127.0.0.1:1/none", logger });
    try {
      const { run, read, ended } = fakeRun();
      run.status = "success";
      const watch = await listener.watch("run_i");
      await expect(watch.until(20_000, read, ended, { fresh: true })).resolves.toEqual({ status: "success" });
      expect(run.reads).toBe(1);
      watch.close();
    } finally {
      await listener.close();
    }
  });
});
