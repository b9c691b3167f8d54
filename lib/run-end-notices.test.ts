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
});
