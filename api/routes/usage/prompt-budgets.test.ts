// Budgets and ai.prompt nodes on a real worker and dev server, against the loopback provider: a
// prompt that finds a budget reached does not call the model; its run waits on a budget wait
// (admins decide) announced by budget.reached. Approval runs the prompt once and the run goes on;
// a rejection ends the run cancelled, and a cancel closes the wait. Each call answered is counted
// once, retries included, and a flow's budget holds that flow only.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { openedWait, testPrisma } from "../../../test/helpers/context.js";
import { openAiAnswer, providerFailure, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { exportedHistory } from "../../../test/helpers/histories.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` },
});
beforeEach(() => provider.reset());
// Each test sets the budgets it needs: none is left for the next.
afterEach(async () => {
  await testPrisma().budget.deleteMany({ where: { workspaceId: h.workspaceId } });
});

const get = (path: string) => request(h.app).get(path).set("Cookie", h.cookie);
const post = (path: string, body: object) => request(h.app).post(path).set("Cookie", h.cookie).send(body);
const put = (path: string, body: object) => request(h.app).put(path).set("Cookie", h.cookie).send(body);

const prompt = (id: string, text: string, extra: object = {}) => ({
  id,
  type: "ai.prompt",
  config: { provider: "openai", model: "gpt-test", prompt: text },
  ...extra,
});

/** Polls for the run's pending budget wait (at most 150 reads, 100 ms apart). */
async function budgetWaitOf(runId: string) {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { runId, reason: "budget", status: "pending" } });
    if (wait) return openedWait(wait);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} has no pending budget wait`);
}

async function startRun(flowId: string) {
  const started = await h.startRun(flowId);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return started.body.run_id as string;
}

const usageRows = (runId: string) =>
  testPrisma().modelUsage.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });

describe("budgets and ai.prompt nodes", () => {
  it("hold a prompt that meets a reached workspace budget: the run waits, survives a restart, and an approval runs the prompt once", async () => {
    // 18 tokens a call (the stub's usage): the first prompt runs (0 of 10 spent), the second waits.
    const set = await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 10 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const flowId = await h.createFlow(
      flow(
        [prompt("first", "Say one"), prompt("second", "Say two after {{ input.text }}")],
        [
          ["start", "first"],
          ["first", "second"],
        ],
      ),
      "Prompt budget",
    );
    provider.script("openai", openAiAnswer({ text: "one" }), openAiAnswer({ text: "two" }));
    const runId = await startRun(flowId);
    const wait = await budgetWaitOf(runId);
    expect(wait).toMatchObject({ runId, nodeId: "second", mode: "approval", minRole: "admin", reason: "budget" });
    expect(wait.budget).toMatchObject({ id: set.body.id, flow_id: null, metric: "tokens", limit: 10, spent: 18 });
    expect(wait.message).toMatch(/daily token budget \(10 tokens\) is reached: 18 tokens spent/);
    expect(provider.calls).toHaveLength(1);

    // The run shows it waiting: its step running, its wait pending with the budget's reason.
    expect((await get(`/api/runs/${runId}`)).body.run.status).toBe("running");
    const steps = await h.steps(runId);
    expect(steps.find((step) => step.node_id === "second")).toMatchObject({ status: "running", attempt: 1 });
    const waits = await get(`/api/runs/${runId}/waits`);
    expect(waits.body.items).toMatchObject([
      { id: wait.id, node_id: "second", reason: "budget", status: "pending", can_decide: true },
    ]);
    const events = await testPrisma().event.findMany({ where: { workspaceId: h.workspaceId, type: "budget.reached" } });
    expect(events.map((event) => (event.payload as { data: unknown }).data)).toEqual([
      expect.objectContaining({ wait_id: wait.id, run_id: runId, node_id: "second", flow_id: flowId }),
    ]);

    // The wait lives in the run's workflow: a new worker takes it on.
    await h.restartWorker();
    const approved = await post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ reason: "budget", decision: "approved", status: "decided" });
    const ended = await h.waitForEnd(runId);
    expect(ended.status, JSON.stringify(ended)).toBe("success");
    expect(ended.output).toMatchObject({ text: "two" });
    expect(provider.calls).toHaveLength(2);
    // One step row per node, the held one succeeded; each call counted once: 36 tokens spent.
    expect((await h.steps(runId)).map((step) => [step.node_id, step.status, step.attempt])).toEqual([
      ["start", "success", 1],
      ["first", "success", 1],
      ["second", "success", 1],
    ]);
    expect((await usageRows(runId)).map((row) => row.nodeId)).toEqual(["first", "second"]);
    const after = await get("/api/usage/budgets");
    expect(after.body.items).toMatchObject([{ id: set.body.id, spent: 36, reached: true }]);

    // The replay fixture of a run held by a budget (worker/workflows/workflows.replay.test.ts).
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL(
        "../../../worker/workflows/histories/budgets.runFlow.held-then-approved.json",
        import.meta.url,
      );
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, runId)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });

  it("end the run cancelled when an admin rejects the held prompt, the model never called", async () => {
    // The workspace spent 36 tokens today (the test above): a budget of 10 is reached already.
    await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 10 });
    const flowId = await h.createFlow(flow([prompt("ask", "Say hi")], [["start", "ask"]]), "Prompt stopped");
    provider.script("openai", openAiAnswer({ text: "never sent" }));
    const runId = await startRun(flowId);
    const wait = await budgetWaitOf(runId);
    const stopped = await post(`/api/waits/${wait.id}/decision`, { decision: "reject", comment: "not today" });
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body).toMatchObject({ decision: "rejected", comment: "not today" });
    const ended = await h.waitForEnd(runId);
    expect(ended.status, JSON.stringify(ended)).toBe("cancelled");
    const step = (await h.steps(runId)).find((s) => s.node_id === "ask");
    expect(step).toMatchObject({
      status: "failed",
      error: expect.objectContaining({ message: "An admin stopped the run at its budget", type: "BudgetStopped" }),
    });
    expect(provider.calls).toHaveLength(0);
    expect(await usageRows(runId)).toEqual([]);
  });

  it("close the held prompt's wait when its run is cancelled", async () => {
    await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 10 });
    const flowId = await h.createFlow(flow([prompt("ask", "Say hi")], [["start", "ask"]]), "Prompt cancelled");
    const runId = await startRun(flowId);
    const wait = await budgetWaitOf(runId);
    const cancelled = await post(`/api/runs/${runId}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBeLessThan(300);
    expect((await h.waitForEnd(runId)).status).toBe("cancelled");
    await expect
      .poll(async () => (await testPrisma().wait.findUniqueOrThrow({ where: { id: wait.id } })).status)
      .toBe("cancelled");
    expect((await h.steps(runId)).find((s) => s.node_id === "ask")).toMatchObject({ status: "failed" });
    const late = await post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(late.status).toBe(409);
    expect(provider.calls).toHaveLength(0);
  });

  it("hold only the flow a flow budget names, and count a retried call once", async () => {
    const held = await h.createFlow(
      flow(
        [prompt("first", "Say one", { retry: { max_attempts: 2, initial_interval_ms: 100 } }), prompt("second", "Two")],
        [
          ["start", "first"],
          ["first", "second"],
        ],
      ),
      "Budgeted flow",
    );
    const other = await h.createFlow(flow([prompt("ask", "Say hi")], [["start", "ask"]]), "Other flow");
    const set = await put("/api/usage/budgets", { flow_id: held, metric: "tokens", period: "day", limit: 10 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    // The first prompt fails once (a 5xx, retried) and then answers: counted once, 18 of 10 spent.
    provider.script("openai", providerFailure("openai", 503, "busy"), openAiAnswer({ text: "one" }));
    const runId = await startRun(held);
    const wait = await budgetWaitOf(runId);
    expect(wait).toMatchObject({ nodeId: "second" });
    expect(wait.budget).toMatchObject({ id: set.body.id, flow_id: held, spent: 18 });
    expect(provider.calls).toHaveLength(2);
    expect((await usageRows(runId)).map((row) => row.nodeId)).toEqual(["first"]);

    // The workspace has spent more than 10 tokens today, but no budget of the other flow is set.
    provider.script("openai", openAiAnswer({ text: "hi" }));
    const free = await h.runToEnd(other);
    expect(free.status, JSON.stringify(free)).toBe("success");
    expect(await testPrisma().wait.count({ where: { runId: free.id } })).toBe(0);

    provider.script("openai", openAiAnswer({ text: "two" }));
    const approved = await post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await h.waitForEnd(runId)).status).toBe("success");
    expect((await usageRows(runId)).map((row) => row.nodeId)).toEqual(["first", "second"]);
    const budgets = await get("/api/usage/budgets");
    expect(budgets.body.items).toMatchObject([{ id: set.body.id, flow_id: held, spent: 36 }]);
  });
  it("approve the held prompts a raise or a removal leaves no budget holding, audited; the others stay held", async () => {
    const alone = await h.createFlow(flow([prompt("ask", "Say alone")], [["start", "ask"]]), "Raised alone");
    const budgeted = await h.createFlow(flow([prompt("ask", "Say budgeted")], [["start", "ask"]]), "Raised budgeted");
    // The budgeted flow spends 18 tokens while no budget is set.
    provider.script("openai", openAiAnswer({ text: "free" }));
    expect((await h.runToEnd(budgeted)).status).toBe("success");
    // The workspace's budget is reached (1 token), and so is the budgeted flow's own (10 tokens).
    const workspace = await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 1 });
    expect(workspace.status, JSON.stringify(workspace.body)).toBe(200);
    const spent = workspace.body.spent as number;
    const own = await put("/api/usage/budgets", { flow_id: budgeted, metric: "tokens", period: "day", limit: 10 });
    expect(own.body).toMatchObject({ reached: true });

    // Both runs meet the workspace's budget first: each wait names it.
    const aloneRun = await startRun(alone);
    const budgetedRun = await startRun(budgeted);
    const aloneWait = await budgetWaitOf(aloneRun);
    const budgetedWait = await budgetWaitOf(budgetedRun);
    expect([aloneWait.budget, budgetedWait.budget]).toMatchObject([
      { id: workspace.body.id },
      { id: workspace.body.id },
    ]);
    const status = async (id: string) => (await testPrisma().wait.findUniqueOrThrow({ where: { id } })).status;

    // Raised to what is spent: still reached, nothing approved.
    expect((await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: spent })).status).toBe(200);
    expect([await status(aloneWait.id), await status(budgetedWait.id)]).toEqual(["pending", "pending"]);

    // Raised over it: the alone flow's prompt runs; the budgeted flow's own budget still holds its run.
    provider.script("openai", openAiAnswer({ text: "alone" }), openAiAnswer({ text: "budgeted" }));
    const raised = await put("/api/usage/budgets", { metric: "tokens", period: "day", limit: spent + 1000 });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    expect(await h.waitForEnd(aloneRun)).toMatchObject({ status: "success", output: { text: "alone" } });
    expect(await status(budgetedWait.id)).toBe("pending");
    expect(await testPrisma().wait.findUniqueOrThrow({ where: { id: aloneWait.id } })).toMatchObject({
      status: "decided",
      decision: "approved",
    });

    // Removing the flow's own budget frees the last one.
    const removed = await request(h.app).delete(`/api/usage/budgets/${own.body.id}`).set("Cookie", h.cookie);
    expect(removed.status).toBe(204);
    expect(await h.waitForEnd(budgetedRun)).toMatchObject({ status: "success", output: { text: "budgeted" } });
    expect(provider.calls).toHaveLength(3);

    // One wait.approved row each, the member who changed the budget acting, no prompt in them.
    const session = await get("/api/auth/session");
    const rows = await testPrisma().auditEvent.findMany({
      where: { objectId: { in: [aloneWait.id, budgetedWait.id] } },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });
    expect(rows.map((row) => [row.objectId, row.action, row.actorId, row.details])).toEqual([
      [
        aloneWait.id,
        "wait.approved",
        session.body.user.id,
        expect.objectContaining({
          run_id: aloneRun,
          reason: "budget",
          cause: "budget_raised",
          budget_id: workspace.body.id,
        }),
      ],
      [
        budgetedWait.id,
        "wait.approved",
        session.body.user.id,
        expect.objectContaining({
          run_id: budgetedRun,
          reason: "budget",
          cause: "budget_raised",
          budget_id: own.body.id,
        }),
      ],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/Say alone|Say budgeted/);
  });
});
