import { describe, expect, it } from "vitest";
import { systemClock } from "../../../lib/clock.js";
import { eventEnvelope } from "../../../lib/events.js";
import { newId } from "../../../lib/ids.js";
import { testPrisma, testSeal } from "../../../test/helpers/context.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { createBlobStore } from "./blobs.js";
import { finalizeRunRecord } from "./run-ends.js";
import { recordRunStart, runEventData } from "./run-records.js";

describe("run records", () => {
  it("ends a run that lasted longer than an int of milliseconds holds (a wait decided after 40 days)", async () => {
    const prisma = testPrisma();
    const user = await createTestUser("long-run");
    const runId = newId("run");
    const fortyDaysMs = 40 * 86_400_000;
    const startedAt = new Date(Date.now() - fortyDaysMs);
    await prisma.$transaction((tx) =>
      recordRunStart(
        tx,
        { clock: systemClock, seal: testSeal },
        {
          id: runId,
          workspaceId: user.workspace.workspaceId,
          flowId: "wf_cccccccccccccccccccccccc",
          flowName: "Waits for a decision",
          version: 1,
          trigger: "api",
          input: {},
          startedAt,
        },
      ),
    );
    const blobs = createBlobStore({ prisma, offloadBytes: 256 * 1024, seal: testSeal });
    const ended = await finalizeRunRecord(
      { prisma, clock: systemClock, blobs },
      {
        runId,
        status: "success",
        output: { approved: true },
        skipped: [],
        reused: [],
        succeeded: [
          {
            nodeId: "approval",
            type: "wait",
            attempt: 1,
            output: { approved: true },
            startedAt: startedAt.toISOString(),
            finishedAt: new Date().toISOString(),
          },
        ],
      },
    );
    expect(ended).toBe(true);
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
    expect(run.status).toBe("success");
    expect(run.durationMs).toBeGreaterThanOrEqual(fortyDaysMs);
    expect(Number.isInteger(run.durationMs)).toBe(true);
    expect(run.steps.map((step) => [step.nodeId, step.status, (step.durationMs ?? 0) >= fortyDaysMs])).toEqual([
      ["approval", "success", true],
    ]);
  });

  it("writes the start and end events of a run as runEventData builds them from its row", async () => {
    const prisma = testPrisma();
    const user = await createTestUser("records");
    const workspaceId = user.workspace.workspaceId;
    const runId = newId("run");
    const startedAt = new Date(Date.now() - 1234);
    await prisma.$transaction((tx) =>
      recordRunStart(
        tx,
        { clock: systemClock, seal: testSeal },
        {
          id: runId,
          workspaceId,
          flowId: "wf_bbbbbbbbbbbbbbbbbbbbbbbb",
          flowName: 'Quotes " and \\ in a name',
          version: 3,
          trigger: "schedule",
          input: {},
          startedAt,
        },
      ),
    );
    const blobs = createBlobStore({ prisma, offloadBytes: 256 * 1024, seal: testSeal });
    for (const status of ["failed", "success"] as const) {
      // The second end finds the run ended: no second event.
      const ended = await finalizeRunRecord(
        { prisma, clock: systemClock, blobs },
        { runId, status, error: { message: "boom" }, skipped: [], reused: [] },
      );
      expect(ended).toBe(status === "failed");
    }

    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.durationMs).toBeGreaterThanOrEqual(1234);
    const events = await prisma.event.findMany({
      where: { workspaceId, payload: { path: ["data", "run_id"], equals: runId } },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        "run.started",
        eventEnvelope({
          event: "run.started",
          timestamp: expect.any(String),
          workspaceId,
          data: runEventData({ ...run, status: "running", durationMs: 0, finishedAt: null }),
        }),
      ],
      [
        "run.failed",
        eventEnvelope({
          event: "run.failed",
          timestamp: run.finishedAt!.toISOString(),
          workspaceId,
          data: runEventData(run),
        }),
      ],
    ]);
  });
});
