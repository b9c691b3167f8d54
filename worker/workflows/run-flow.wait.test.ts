// The wait node on a real worker: the run waits for a decision (a Temporal update) with nothing
// running meanwhile, follows the decided branch, and records the wait and its step.
import request from "supertest";
import { WorkflowUpdateFailedError } from "@temporalio/client";
import { describe, expect, it } from "vitest";
import { testPrisma, openedWait } from "../../test/helpers/context.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import {
  decideWaitUpdate,
  pendingWaitsQuery,
  WAIT_REFUSALS,
  type WaitDecisionInput,
} from "../../core/contracts/waits.js";
import { hashResumeToken } from "../../core/waits/wait-tokens.js";

const h = useRunHarness();

/** The run's pending wait, once its activity has recorded it. */
async function pendingWait(runId: string) {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { runId, status: "pending" } });
    // Its message and proposed arguments are stored sealed (run payloads at rest): read opened.
    if (wait) return openedWait(wait);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} has no pending wait`);
}

const decide = (runId: string, input: WaitDecisionInput) =>
  h.deps.temporal.workflow.getHandle(runId).executeUpdate(decideWaitUpdate, { args: [input] });

/** The failure type a refused decision carries. */
async function refusalOf(decision: Promise<unknown>): Promise<string | undefined> {
  const error = await decision.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as { type?: string } | undefined)?.type;
}

async function member() {
  const res = await request(h.app).get("/api/auth/session").set("Cookie", h.cookie);
  return {
    id: res.body.user.id as string,
    name: res.body.user.name as string,
    role: res.body.workspace.role as string,
  };
}

const byNode = <S extends { node_id: string }>(steps: S[]): Record<string, S> =>
  Object.fromEntries(steps.map((s) => [s.node_id, s]));

/** The decisions the run's history accepted, as their inputs were sent (opened with the codec). */
async function acceptedUpdates(runId: string) {
  const history = await h.deps.temporal.workflow.getHandle(runId).fetchHistory();
  const [codec] = h.deps.dataConverter.payloadCodecs;
  const requests = history
    .events!.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .map((event) => event.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!);
  return Promise.all(
    requests.map(async (input) => {
      const [payload] = await codec.decode([input.args!.payloads![0]!]);
      return { name: input.name, input: JSON.parse(Buffer.from(payload!.data!).toString("utf8")) as unknown };
    }),
  );
}

const approvalFlow = (config: object = {}) =>
  flow(
    [
      { id: "ask", type: "wait", name: "Refund?", config: { message: "Refund {{ input.amount }}?", ...config } },
      { id: "pay", type: "set", config: { fields: { paid: true, by: "{{ nodes.ask.decided_by.name }}" } } },
      { id: "refuse", type: "set", config: { fields: { paid: false, why: "{{ nodes.ask.comment }}" } } },
    ],
    [
      ["start", "ask"],
      ["ask", "pay", "approved"],
      ["ask", "refuse", "rejected"],
    ],
  );

describe("runFlow's wait node (a Temporal update decides it)", () => {
  it("approves: follows approved with the decision as output, records the wait and keeps the update in history", async () => {
    const flowId = await h.createFlow(approvalFlow());
    const started = await h.startRun(flowId, { amount: 40 });
    const runId = started.body.run_id as string;
    const wait = await pendingWait(runId);
    expect(wait).toMatchObject({ nodeId: "ask", nodeName: "Refund?", mode: "approval", message: "Refund 40?" });
    expect(wait.tokenHash).toBeNull();
    // While it waits, the step is running and the run too: nothing else is scheduled.
    expect(byNode(await h.steps(runId)).ask).toMatchObject({ status: "running", finished_at: null });

    const me = await member();
    const answer = await decide(runId, { waitId: wait.id, action: "approve", comment: "ok", decidedBy: me });
    expect(answer).toMatchObject({ waitId: wait.id, decision: "approved", decidedAt: expect.any(String) });

    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "success", output: { paid: true, by: me.name } });
    const steps = byNode(await h.steps(runId));
    expect(steps.ask).toMatchObject({
      status: "success",
      branch: "approved",
      output: {
        decision: "approved",
        comment: "ok",
        decided_by: { id: me.id, name: me.name },
        decided_at: answer.decidedAt,
      },
    });
    expect(steps.refuse).toMatchObject({ status: "skipped" });
    // The record was closed before the update answered.
    expect(await testPrisma().wait.findUnique({ where: { id: wait.id } })).toMatchObject({
      status: "decided",
      decision: "approved",
      comment: "ok",
      decidedBy: me.id,
      decidedByName: me.name,
      decidedAt: new Date(answer.decidedAt),
      closedAt: expect.any(Date),
    });
    expect(await acceptedUpdates(runId)).toEqual([
      { name: "decideWait", input: { waitId: wait.id, action: "approve", comment: "ok", decidedBy: me } },
    ]);
    // One run.waiting event when the wait began, with the run's data and the wait's.
    const waiting = await testPrisma().event.findMany({
      where: { workspaceId: h.workspaceId, type: "run.waiting", payload: { path: ["data", "run_id"], equals: runId } },
    });
    expect(waiting.map((event) => event.payload)).toEqual([
      {
        event: "run.waiting",
        timestamp: wait.createdAt.toISOString(),
        workspace_id: h.workspaceId,
        data: {
          run_id: runId,
          workflow_id: flowId,
          workflow_name: "Test flow",
          status: "running",
          duration_ms: 0,
          started_at: started.body.started_at,
          finished_at: started.body.started_at,
          wait_id: wait.id,
          node_id: "ask",
          mode: "approval",
          expires_at: null,
        },
      },
    ]);
  });

  it("rejects: follows rejected with the comment; a second decision is refused as decided", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "ask", type: "wait" },
          { id: "pay", type: "set", config: { fields: { paid: true } } },
          { id: "refuse", type: "set", config: { fields: { paid: false, why: "{{ nodes.ask.comment }}" } } },
          // A second wait keeps the run alive after the first decision.
          { id: "hold", type: "wait", config: { mode: "resume" } },
        ],
        [
          ["start", "ask"],
          ["ask", "pay", "approved"],
          ["ask", "refuse", "rejected"],
          ["refuse", "hold"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId, { amount: 9000 })).body.run_id as string;
    const wait = await pendingWait(runId);
    const me = await member();
    await decide(runId, { waitId: wait.id, action: "reject", comment: "too much", decidedBy: me });
    const hold = await pendingWait(runId);
    expect(hold.nodeId).toBe("hold");
    expect(await refusalOf(decide(runId, { waitId: wait.id, action: "approve", decidedBy: me }))).toBe(
      WAIT_REFUSALS.decided,
    );
    await decide(runId, { waitId: hold.id, action: "resume", body: { done: true } });

    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "success", output: { done: true } });
    const steps = byNode(await h.steps(runId));
    expect(steps.ask).toMatchObject({ status: "success", branch: "rejected", output: { decision: "rejected" } });
    expect(steps.refuse).toMatchObject({ status: "success", output: { paid: false, why: "too much" } });
    expect(steps.pay).toMatchObject({ status: "skipped" });
    expect((await acceptedUpdates(runId)).map((update) => (update.input as WaitDecisionInput).action)).toEqual([
      "reject",
      "resume",
    ]);
  });

  it("refuses members the node does not allow, unknown waits and the wrong action, and then still takes a decision", async () => {
    const me = await member();
    const flowId = await h.createFlow(approvalFlow({ approver_user_id: me.id, min_role: "admin" }));
    const runId = (await h.startRun(flowId)).body.run_id as string;
    const wait = await pendingWait(runId);
    expect(wait).toMatchObject({ approverUserId: me.id, minRole: "admin" });

    const refusals = await Promise.all([
      refusalOf(decide(runId, { waitId: wait.id, action: "approve", decidedBy: { ...me, role: "editor" } })),
      refusalOf(decide(runId, { waitId: wait.id, action: "approve", decidedBy: { ...me, id: "usr_other" } })),
      refusalOf(decide(runId, { waitId: wait.id, action: "approve" })),
      refusalOf(decide(runId, { waitId: "wait_unknown", action: "approve", decidedBy: me })),
      refusalOf(decide(runId, { waitId: wait.id, action: "resume", body: {} })),
    ]);
    expect(refusals).toEqual([
      WAIT_REFUSALS.notAllowed,
      WAIT_REFUSALS.notAllowed,
      WAIT_REFUSALS.notAllowed,
      WAIT_REFUSALS.unknown,
      WAIT_REFUSALS.wrongAction,
    ]);
    // Refused updates are not in the history.
    expect(await acceptedUpdates(runId)).toEqual([]);

    await decide(runId, { waitId: wait.id, action: "approve", decidedBy: me });
    expect(await h.waitForEnd(runId)).toMatchObject({ status: "success", output: { paid: true } });
  });

  it("resumes with the body as output; the token is the workflow's, the database keeps its hash", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "hold", type: "wait", config: { mode: "resume" } },
          { id: "after", type: "set", config: { fields: { got: "{{ input.result }}" } } },
        ],
        [
          ["start", "hold"],
          ["hold", "after", "resumed"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    const wait = await pendingWait(runId);
    const [pending] = await h.deps.temporal.workflow.getHandle(runId).query(pendingWaitsQuery);
    expect(pending).toEqual({ waitId: wait.id, nodeId: "hold", resumeToken: expect.stringMatching(/^wr_/) });
    expect(wait.tokenHash).toBe(hashResumeToken(pending!.resumeToken!));
    // The run.waiting event says the wait began, never with its token.
    const [waiting] = await testPrisma().event.findMany({
      where: { type: "run.waiting", payload: { path: ["data", "wait_id"], equals: wait.id } },
    });
    expect(waiting!.payload).toMatchObject({ data: { run_id: runId, node_id: "hold", mode: "resume" } });
    expect(JSON.stringify(waiting!.payload)).not.toContain(pending!.resumeToken!);

    await decide(runId, { waitId: wait.id, action: "resume", body: { result: 42 } });
    expect(await h.waitForEnd(runId)).toMatchObject({ status: "success", output: { got: 42 } });
    expect(byNode(await h.steps(runId)).hold).toMatchObject({
      status: "success",
      branch: "resumed",
      output: { result: 42 },
    });
    expect(await testPrisma().wait.findUnique({ where: { id: wait.id } })).toMatchObject({
      status: "decided",
      decision: "resumed",
      decidedBy: null,
    });
  });

  it("closes the wait as cancelled when the waiting run is cancelled", async () => {
    const flowId = await h.createFlow(approvalFlow());
    const runId = (await h.startRun(flowId)).body.run_id as string;
    const wait = await pendingWait(runId);
    const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(cancel.status).toBe(202);
    expect(await h.waitForEnd(runId)).toMatchObject({ status: "cancelled" });
    expect(await testPrisma().wait.findUnique({ where: { id: wait.id } })).toMatchObject({
      status: "cancelled",
      decision: null,
      closedAt: expect.any(Date),
    });
    expect(byNode(await h.steps(runId)).ask).toMatchObject({ status: "failed" });
  });

  it("stops waiting when another branch fails: the wait closes and the run fails with the first error", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "ask", type: "wait" },
          { id: "broken", type: "test_fail", config: { failures: 1, fatal: true } },
        ],
        [
          ["start", "ask"],
          ["start", "broken"],
        ],
      ),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "failed", error: { node_id: "broken" } });
    const wait = await testPrisma().wait.findFirst({ where: { runId } });
    expect(wait).toMatchObject({ status: "cancelled" });
    expect(byNode(await h.steps(runId)).ask).toMatchObject({
      status: "failed",
      error: { message: "the run failed at node broken while this node waited" },
    });
  });

  it("waits across a worker restart: the new worker replays the wait and takes the decision", async () => {
    const flowId = await h.createFlow(approvalFlow());
    const runId = (await h.startRun(flowId, { amount: 1 })).body.run_id as string;
    const wait = await pendingWait(runId);
    await h.restartWorker();
    const me = await member();
    await decide(runId, { waitId: wait.id, action: "approve", decidedBy: me });
    expect(await h.waitForEnd(runId)).toMatchObject({ status: "success", output: { paid: true } });
    // One wait, one attempt of its step: the restart repeated nothing.
    expect(await testPrisma().wait.count({ where: { runId } })).toBe(1);
    expect((await h.steps(runId)).filter((step) => step.node_id === "ask")).toHaveLength(1);
  });
});
