// Error flows against the real server: a failed run starts the flow its version names, once,
// with the failed run and its error as input; the error flow's own failure, a cancelled run and a
// missing error flow start nothing.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma, openedRun } from "../../../test/helpers/context.js";
import { drainOutbox, flow, useRunHarness } from "../../../test/helpers/runs.js";
import { errorFlowRunId } from "./error-flows.js";

describe("error flows", () => {
  const h = useRunHarness();

  const dispatchAll = () => drainOutbox(h);
  const runOf = openedRun;
  const failing = (errorFlowId: string | undefined) => ({
    ...flow([{ id: "boom", type: "test_fail", config: { failures: 9, fatal: true } }], [["start", "boom"]]),
    ...(errorFlowId ? { error_flow_id: errorFlowId } : {}),
  });

  it("starts the named flow once when a run fails, with the failed run, its node and its error", async () => {
    const errorFlowId = await h.createFlow(
      flow(
        [
          {
            id: "report",
            type: "set",
            config: {
              fields: {
                failed: "{{ input.failed_run.id }}",
                node: "{{ input.node_id }}",
                why: "{{ input.error.message }}",
              },
            },
          },
        ],
        [["start", "report"]],
      ),
      "On failure",
    );
    const flowId = await h.createFlow(failing(errorFlowId), "Fragile");
    const failed = await h.runToEnd(flowId);
    expect(failed.status).toBe("failed");

    await dispatchAll();
    const errorRunId = errorFlowRunId(failed.id);
    const errorRun = await h.waitForEnd(errorRunId);
    expect(errorRun).toMatchObject({ status: "success", trigger: "error_flow", flow_id: errorFlowId });
    const recorded = await runOf(errorRunId);
    expect(recorded!.input).toMatchObject({
      failed_run: { id: failed.id, flow_id: flowId, flow_name: "Fragile", version: 1, trigger: "api" },
      node_id: "boom",
      error: { node_id: "boom", message: "planned failure 1 of 9" },
    });
    const report = (await h.steps(errorRunId)).find((step) => step.node_id === "report");
    expect(report?.output).toEqual({ failed: failed.id, node: "boom", why: "planned failure 1 of 9" });

    // The outbox met the event once; a repeat of the pass (a crash before marking) finds the run.
    await dispatchAll();
    expect(await testPrisma().run.count({ where: { flowId: errorFlowId } })).toBe(1);
  }, 60_000);

  it("starts nothing for the error flow's own failure, a cancelled run, or an error flow that is gone", async () => {
    // An error flow that fails and names itself (saved before such cycles were refused, so
    // written to its row here): its failure must not start it again.
    const selfId = await h.createFlow(failing(undefined), "Failing handler");
    await testPrisma().flow.update({
      where: { id: selfId },
      data: { definition: JSON.parse(JSON.stringify(failing(selfId))) as object },
    });
    const flowId = await h.createFlow(failing(selfId), "Fragile, badly handled");
    const failed = await h.runToEnd(flowId);
    await dispatchAll();
    const handlerRun = await h.waitForEnd(errorFlowRunId(failed.id));
    expect(handlerRun.status).toBe("failed");
    await dispatchAll();
    expect(await runOf(errorFlowRunId(handlerRun.id))).toBeNull();

    // A cancelled run.
    const slowId = await h.createFlow(
      {
        ...flow([{ id: "nap", type: "delay", config: { duration: "20s" } }], [["start", "nap"]]),
        error_flow_id: selfId,
      },
      "Slow",
    );
    const started = await h.startRun(slowId);
    expect(started.status).toBe(201);
    const cancelled = await request(h.app).post(`/api/runs/${started.body.run_id}/cancel`).set("Cookie", h.cookie);
    expect(cancelled.status).toBe(202);
    expect((await h.waitForEnd(started.body.run_id)).status).toBe("cancelled");

    // An error flow that is not (or no longer) there.
    const orphanId = await h.createFlow(failing(`wf_${randomUUID().replaceAll("-", "").slice(0, 24)}`), "Orphan");
    const orphanRun = await h.runToEnd(orphanId);

    await dispatchAll();
    expect(await runOf(errorFlowRunId(started.body.run_id))).toBeNull();
    expect(await runOf(errorFlowRunId(orphanRun.id))).toBeNull();
    // The events were dispatched all the same: none is left behind to be met again.
    expect(await testPrisma().event.count({ where: { workspaceId: h.workspaceId, dispatchedAt: null } })).toBe(0);
  }, 90_000);

  it("falls back to the workspace's error flow, set by an admin through its settings", async () => {
    const settings = () => request(h.app).get("/api/workspace/settings").set("Cookie", h.cookie);
    expect((await settings()).body).toMatchObject({ error_flow_id: null });
    const handler = await h.createFlow(
      flow([{ id: "note", type: "set", config: { fields: { seen: true } } }], [["start", "note"]]),
      "Workspace handler",
    );
    const put = (body: object) => request(h.app).put("/api/workspace/settings").set("Cookie", h.cookie).send(body);
    const missing = await put({ error_flow_id: "wf_000000000000000000000000" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "invalid_settings" });
    expect((await put({ error_flow_id: "https://example.com" })).status).toBe(400);
    expect((await put({ error_flow_id: handler })).body).toMatchObject({ error_flow_id: handler });

    try {
      // A flow that names none: the workspace's runs; one that names its own: its own runs.
      const plain = await h.createFlow(failing(undefined), "Fragile, no handler of its own");
      const failed = await h.runToEnd(plain);
      await dispatchAll();
      expect(await h.waitForEnd(errorFlowRunId(failed.id))).toMatchObject({ status: "success", flow_id: handler });
    } finally {
      expect((await put({ error_flow_id: null })).body).toMatchObject({ error_flow_id: null });
    }
  }, 60_000);

  it("refuses an error_flow_id that is not a flow id", async () => {
    const res = await request(h.app)
      .post("/api/flows")
      .set("Cookie", h.cookie)
      .send({ name: "Bad", definition: failing("https://example.com") });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/error_flow_id/);
  });
});
