// The audit log of what people do to runs on a real worker: approvals decided, reruns, retries and
// bulk reruns started (once per request, an Idempotency-Key's repeat writing nothing), runs
// deleted; never a comment.
import { randomBytes } from "node:crypto";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { brokenSwitches } from "../../test/fixtures/test-nodes.js";
import { testPrisma } from "../../test/helpers/context.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const h = useRunHarness();

const rows = (filter: { action?: string | { startsWith: string }; objectId?: string }) =>
  testPrisma().auditEvent.findMany({
    where: { workspaceId: h.workspaceId, ...filter },
    orderBy: [{ at: "asc" }, { id: "asc" }],
  });

async function waitOf(runId: string) {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { runId } });
    if (wait) return wait.id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} has no wait`);
}

describe("audit log of runs", () => {
  it("records an approval and a rejection by the person who decided, without the comment", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "ask", type: "wait", name: "Ask", config: { message: "Go?" } }], [["start", "ask"]]),
      "Audited approvals",
    );
    const comment = "comment-never-in-audit";
    const decided: Array<{ runId: string; waitId: string }> = [];
    for (const decision of ["approve", "reject"] as const) {
      const started = await h.startRun(flowId);
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const runId = started.body.run_id as string;
      const waitId = await waitOf(runId);
      const res = await request(h.app)
        .post(`/api/waits/${waitId}/decision`)
        .set("Cookie", h.cookie)
        .send({ decision, comment });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // A second decision is refused and writes nothing.
      const again = await request(h.app)
        .post(`/api/waits/${waitId}/decision`)
        .set("Cookie", h.cookie)
        .send({ decision: "approve" });
      expect(again.status).toBe(409);
      decided.push({ runId, waitId });
    }
    const written = await rows({ action: { startsWith: "wait." } });
    expect(written.map((row) => [row.action, row.objectKind, row.objectId, row.actorKind])).toEqual([
      ["wait.approved", "wait", decided[0]!.waitId, "person"],
      ["wait.rejected", "wait", decided[1]!.waitId, "person"],
    ]);
    expect(written[0]!.details).toEqual({
      run_id: decided[0]!.runId,
      agent_run_id: null,
      node_id: "ask",
      reason: "node",
      commented: true,
    });
    expect(JSON.stringify(written)).not.toContain(comment);
  });

  it("records a rerun once per request, and a bulk rerun with its operation", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "say", type: "log", config: { message: "hi" } }], [["start", "say"]]),
      "Audited reruns",
    );
    const first = await h.runToEnd(flowId);
    const key = `audit-rerun-${Date.now()}`;
    const keyed = () =>
      request(h.app).post(`/api/runs/${first.id}/rerun`).set("Cookie", h.cookie).set("Idempotency-Key", key).send({});
    const rerun = await keyed();
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(201);
    expect((await keyed()).status).toBe(200);
    await h.waitForEnd(rerun.body.run_id as string);

    const reruns = await rows({ action: "run.rerun" });
    expect(reruns).toHaveLength(1);
    expect(reruns[0]).toMatchObject({
      actorKind: "person",
      objectKind: "run",
      objectId: rerun.body.run_id,
      details: { rerun_of: first.id, version: 1 },
    });

    const bulk = await request(h.app)
      .post("/api/runs/rerun")
      .set("Cookie", h.cookie)
      .send({ ids: [first.id] });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(202);
    const bulkRows = await rows({ action: "run.bulk_rerun" });
    expect(bulkRows).toHaveLength(1);
    expect(bulkRows[0]).toMatchObject({
      actorKind: "person",
      objectKind: "operation",
      objectId: bulk.body.operation_id,
      details: { total: 1 },
    });
  });

  it("records a retry as a rerun from the failed node, and a run's deletion with what the run was", async () => {
    const key = randomBytes(8).toString("hex");
    brokenSwitches.add(key);
    const flowId = await h.createFlow(
      flow([{ id: "gate", type: "test_switch", config: { key } }], [["start", "gate"]]),
      "Audited retries",
    );
    const failed = await h.runToEnd(flowId);
    expect(failed.status).toBe("failed");
    brokenSwitches.delete(key);
    const retried = await request(h.app).post(`/api/runs/${failed.id}/retry`).set("Cookie", h.cookie);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    await h.waitForEnd(retried.body.run_id as string);
    expect((await rows({ objectId: retried.body.run_id })).map((row) => [row.action, row.details])).toEqual([
      ["run.rerun", { rerun_of: failed.id, from_failed: true }],
    ]);

    expect((await request(h.app).delete(`/api/runs/${failed.id}`).set("Cookie", h.cookie)).status).toBe(200);
    // Gone already: 404, and nothing written.
    expect((await request(h.app).delete(`/api/runs/${failed.id}`).set("Cookie", h.cookie)).status).toBe(404);
    const deleted = await rows({ objectId: failed.id });
    expect(deleted.map((row) => [row.action, row.actorKind, row.details])).toEqual([
      ["run.deleted", "person", { flow_id: flowId, flow_name: "Audited retries", version: 1, status: "failed" }],
    ]);
  });

  it("records who cancelled a run, once", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "ask", type: "wait", name: "Ask", config: { message: "Go?" } }], [["start", "ask"]]),
      "Audited cancels",
    );
    const started = await h.startRun(flowId);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run_id as string;
    await waitOf(runId);
    const cancel = () => request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect((await cancel()).status).toBe(202);
    expect((await h.waitForEnd(runId)).status).toBe("cancelled");
    // Ended already: 409, and nothing written.
    expect((await cancel()).status).toBe(409);
    const written = await rows({ objectId: runId });
    expect(written.map((row) => [row.action, row.actorKind, row.details])).toEqual([
      ["run.cancelled", "person", { flow_id: flowId, flow_name: "Audited cancels", version: 1 }],
    ]);
  });
});
