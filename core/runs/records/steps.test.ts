import { describe, expect, it } from "vitest";
import { systemClock } from "../../../lib/clock.js";
import { newId } from "../../../lib/ids.js";
import { testPrisma, testSeal } from "../../../test/helpers/context.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { createBlobStore } from "./blobs.js";
import { finalizeRunRecord } from "./run-ends.js";
import { createStepStore } from "./steps.js";

async function seedRun() {
  const user = await createTestUser("steps");
  const run = await testPrisma().run.create({
    data: {
      id: newId("run"),
      workspaceId: user.workspace.workspaceId,
      flowId: "wf_aaaaaaaaaaaaaaaaaaaaaaaa",
      flowName: "Steps",
      version: 1,
      trigger: "api",
      input: {},
      startedAt: new Date(),
    },
  });
  return run.id;
}

const rowsOf = async (runId: string) =>
  (await testPrisma().runStep.findMany({ where: { runId }, orderBy: { attempt: "asc" } })).map((row) => ({
    attempt: row.attempt,
    status: row.status,
    error: (row.error as { message?: string } | null)?.message,
  }));

describe("step store", () => {
  it("closes an earlier success when a later attempt of the node is recorded (its result never reached Temporal)", async () => {
    const steps = createStepStore({ prisma: testPrisma(), clock: systemClock, seal: testSeal });
    const runId = await seedRun();
    const key = { runId, nodeId: "call", type: "http_request" };

    // Attempt 1's row was written, then its worker was killed before reporting; Temporal ran attempt 2.
    await steps.record(steps.success(key, 1, new Date(), { status: 200 }));
    await steps.record(steps.success(key, 2, new Date(), { status: 200 }));

    expect(await rowsOf(runId)).toEqual([
      { attempt: 1, status: "failed", error: expect.stringMatching(/before Temporal heard of it/) },
      { attempt: 2, status: "success", error: undefined },
    ]);
  });

  it("closes an earlier attempt still marked running as one that did not finish", async () => {
    const steps = createStepStore({ prisma: testPrisma(), clock: systemClock, seal: testSeal });
    const runId = await seedRun();
    const key = { runId, nodeId: "slow", type: "test_sleep" };

    await steps.start(key, 1, new Date());
    await steps.start(key, 2, new Date());
    await steps.record(steps.success(key, 2, new Date(), null));

    expect(await rowsOf(runId)).toEqual([
      { attempt: 1, status: "failed", error: expect.stringMatching(/did not finish/) },
      { attempt: 2, status: "success", error: undefined },
    ]);
  });

  it("closes an earlier success when the later attempt's row is written late, with the run's end or a kept row", async () => {
    const steps = createStepStore({ prisma: testPrisma(), clock: systemClock, seal: testSeal });
    const blobs = createBlobStore({ prisma: testPrisma(), offloadBytes: 256 * 1024, seal: testSeal });
    const late = (runId: string, nodeId: string, type: string) => ({
      nodeId,
      type,
      attempt: 2,
      startedAt: new Date().toISOString(),
      finishedAt: new Date().toISOString(),
      output: { ok: true },
    });

    // Attempt 2's worker answered Temporal, then was killed before its row landed: the run's end writes it.
    const ended = await seedRun();
    await steps.record(steps.success({ runId: ended, nodeId: "call", type: "http_request" }, 1, new Date(), {}));
    const done = await finalizeRunRecord(
      { prisma: testPrisma(), clock: systemClock, blobs },
      {
        runId: ended,
        status: "success",
        output: { ok: true },
        skipped: [],
        reused: [],
        succeeded: [late(ended, "call", "http_request")],
      },
    );
    expect(done).toBe(true);
    expect(await rowsOf(ended)).toEqual([
      { attempt: 1, status: "failed", error: expect.stringMatching(/before Temporal heard of it/) },
      { attempt: 2, status: "success", error: undefined },
    ]);

    // A local node's row kept by the workflow and handed to a later write.
    const kept = await seedRun();
    await steps.record(steps.success({ runId: kept, nodeId: "shape", type: "set" }, 1, new Date(), {}));
    await steps.record(steps.successes(kept, [late(kept, "shape", "set")]));
    expect((await rowsOf(kept)).map((row) => [row.attempt, row.status])).toEqual([
      [1, "failed"],
      [2, "success"],
    ]);
  });
});
