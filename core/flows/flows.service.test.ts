// Deleting a flow on a real worker: its running runs, waiting ones included, are cancelled first,
// so that none resumes afterwards and executes a flow that is gone.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { waitFor } from "../../scripts/infra/process.js";
import { testPrisma } from "../../test/helpers/context.js";
import { startLoopbackServer } from "../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });

/** The run's pending wait, once its activity has recorded it. */
const pendingWait = (runId: string) =>
  waitFor(`run ${runId}'s pending wait`, () => testPrisma().wait.findFirst({ where: { runId, status: "pending" } }), {
    timeoutMs: 15_000,
    intervalMs: 100,
  });

describe("deleting a flow", () => {
  it("cancels its waiting runs first: each ends cancelled, its wait closed, and nothing runs after", async () => {
    // What the node after the wait would call: it must never be called.
    const calls: string[] = [];
    const after = await startLoopbackServer((req, res) => {
      calls.push(req.url!);
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
    try {
      const flowId = await h.createFlow(
        flow(
          [
            { id: "ask", type: "wait", config: { message: "Go on?" } },
            { id: "call", type: "http_request", config: { url: `${after.url}/after-the-wait`, method: "POST" } },
          ],
          [
            ["start", "ask"],
            ["ask", "call", "approved"],
          ],
        ),
      );
      const runIds = [
        (await h.startRun(flowId)).body.run_id as string,
        (await h.startRun(flowId)).body.run_id as string,
      ];
      const waits = await Promise.all(runIds.map(pendingWait));

      const deleted = await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(deleted.body.ok).toBe(true);
      expect([...deleted.body.cancelled_runs].sort()).toEqual([...runIds].sort());
      expect((await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie)).status).toBe(404);

      for (const [i, runId] of runIds.entries()) {
        expect(await h.waitForEnd(runId)).toMatchObject({ status: "cancelled" });
        expect(await testPrisma().wait.findUnique({ where: { id: waits[i]!.id } })).toMatchObject({
          status: "cancelled",
          closedAt: expect.any(Date),
        });
        // Deciding the wait now is refused: it closed with its run.
        const decided = await request(h.app)
          .post(`/api/waits/${waits[i]!.id}/decision`)
          .set("Cookie", h.cookie)
          .send({ decision: "approve" });
        expect([decided.status, decided.body.code]).toEqual([409, "wait_cancelled"]);
        const steps = Object.fromEntries((await h.steps(runId)).map((step) => [step.node_id, step.status]));
        expect(steps).toEqual({ start: "success", ask: "failed", call: "skipped" });
      }
      expect(calls).toEqual([]);
    } finally {
      after.close();
    }
  });

  it("answers an empty cancelled_runs for a flow with no running run, and 404 for one that is gone", async () => {
    const flowId = await h.createFlow(flow([{ id: "s", type: "set", config: { fields: { a: 1 } } }], [["start", "s"]]));
    expect((await h.runToEnd(flowId)).status).toBe("success");
    const deleted = await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    expect([deleted.status, deleted.body]).toEqual([200, { ok: true, cancelled_runs: [] }]);
    const again = await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    expect([again.status, again.body.code]).toEqual([404, "not_found"]);
  });
});
