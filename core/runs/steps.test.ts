import { describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { newId } from "../../lib/ids.js";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
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
    const steps = createStepStore({ prisma: testPrisma(), clock: systemClock });
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
    const steps = createStepStore({ prisma: testPrisma(), clock: systemClock });
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
});
