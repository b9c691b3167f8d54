// Budgets on a real worker and dev server: an agent's model call that finds a workspace budget
// reached does not run; the agent waits (a wait with reason budget, admins decide) and an event
// announces it. Approval runs that call once; a rejection stops the agent, which ends cancelled.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openedWait, testPrisma } from "../../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { exportedHistory } from "../../../test/helpers/histories.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` },
});
beforeEach(() => provider.reset());

type Role = "owner" | "editor";
const cookies = {} as Record<Role, string>;

beforeAll(async () => {
  cookies.owner = h.cookie;
  const member = await createTestUser("editor");
  await testPrisma().membership.create({
    data: { userId: member.user.id, workspaceId: h.workspaceId, role: "editor" },
  });
  cookies.editor = (await login(h.app, member.email, undefined, { workspaceId: h.workspaceId })).cookie;
});

const as = (role: Role) => ({
  get: (path: string) => request(h.app).get(path).set("Cookie", cookies[role]),
  post: (path: string, body?: object) => request(h.app).post(path).set("Cookie", cookies[role]).send(body),
  put: (path: string, body?: object) => request(h.app).put(path).set("Cookie", cookies[role]).send(body),
  delete: (path: string) => request(h.app).delete(path).set("Cookie", cookies[role]),
});

/** Polls the agent run until it has ended (at most 150 reads, 100 ms apart). */
async function agentRunEnd(id: string) {
  for (let tries = 0; tries < 150; tries++) {
    const res = await as("owner").get(`/api/agent/runs/${id}`);
    expect(res.status).toBe(200);
    if (res.body.agent_run.status !== "running") {
      return res.body as {
        agent_run: { status: string; reason: string; answer: string | null; error: { message: string } | null };
        steps: Array<{ kind: string; name: string }>;
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${id} still running`);
}

/** Polls for the agent run's pending budget wait (at most 150 reads, 100 ms apart). */
async function budgetWaitOf(agentRunId: string) {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { agentRunId, reason: "budget", status: "pending" } });
    if (wait) return openedWait(wait);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${agentRunId} has no pending budget wait`);
}

async function startAgent(agent: string) {
  const res = await as("owner").post("/api/agent/run", {
    agent,
    instructions: "Remember the colour",
    provider: "openai",
    model: "gpt-test",
    tools: ["memory.write"],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.agent_run_id as string;
}

/** The workspace's audit rows about one object (a wait, a budget), oldest first. */
const auditOf = (objectId: string) =>
  testPrisma().auditEvent.findMany({
    where: { workspaceId: h.workspaceId, objectId },
    orderBy: [{ at: "asc" }, { id: "asc" }],
  });

const memoryWrite = (value: string) =>
  openAiAnswer({ toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "colour", value }) }] });

describe("budgets", () => {
  it("are set by admins only, with clear errors for bad limits and unknown flows", async () => {
    const denied = await as("editor").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 10 });
    expect(denied.status).toBe(403);
    for (const [body, field] of [
      [{ metric: "tokens", period: "day", limit: 0 }, "limit"],
      [{ metric: "tokens", period: "day", limit: 1.5 }, "limit"],
      [{ metric: "cost", period: "day", limit: 1e13 }, "limit"],
      [{ metric: "coins", period: "day", limit: 1 }, "metric"],
      [{ metric: "cost", period: "week", limit: 1 }, "period"],
    ] as const) {
      const res = await as("owner").put("/api/usage/budgets", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(body)).toContain(field);
    }
    const unknownFlow = await as("owner").put("/api/usage/budgets", {
      flow_id: "wf_000000000000000000000000",
      metric: "cost",
      period: "month",
      limit: 5,
    });
    expect(unknownFlow.status).toBe(404);
    expect(unknownFlow.body).toMatchObject({ code: "not_found" });
    const missing = await as("owner").delete("/api/usage/budgets/bud_000000000000000000000000");
    expect(missing.status).toBe(404);
    const badId = await as("owner").delete("/api/usage/budgets/nope");
    expect(badId.status).toBe(400);
    // Refused changes write no audit row.
    expect(
      await testPrisma().auditEvent.count({ where: { workspaceId: h.workspaceId, action: { startsWith: "budget." } } }),
    ).toBe(0);
  });

  it("pause an agent whose workspace reached its budget mid-run; an admin's approval runs that call once", async () => {
    // 18 tokens a call (the stub's usage): the first call runs (0 of 10 spent), the second waits.
    const set = await as("owner").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 10 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ flow_id: null, metric: "tokens", period: "day", limit: 10, reached: false });
    provider.script("openai", memoryWrite("green"), openAiAnswer({ text: "Noted: green." }));
    const id = await startAgent("budget-approve");
    const wait = await budgetWaitOf(id);
    expect(wait).toMatchObject({ agentRunId: id, mode: "approval", minRole: "admin" });
    expect(wait.budget).toMatchObject({ id: set.body.id, metric: "tokens", period: "day", limit: 10, spent: 18 });
    expect(wait.message).toMatch(/daily token budget \(10 tokens\) is reached: 18 tokens spent/);
    expect(provider.calls).toHaveLength(1);

    // The budget reads as reached; admins see the wait in the inbox, editors do not and may not decide.
    const budgets = await as("editor").get("/api/usage/budgets");
    expect(budgets.body.items).toMatchObject([{ id: set.body.id, spent: 18, reached: true }]);
    const inbox = await as("owner").get("/api/waits?limit=200");
    expect(inbox.body.items.find((item: { id: string }) => item.id === wait.id)).toMatchObject({
      agent_run_id: id,
      reason: "budget",
      budget: { id: set.body.id, limit: 10, spent: 18 },
      tool: null,
      can_decide: true,
    });
    const editorInbox = await as("editor").get("/api/waits?limit=200");
    expect(editorInbox.body.items.map((item: { id: string }) => item.id)).not.toContain(wait.id);
    const refused = await as("editor").post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(refused.status).toBe(403);

    // An event announces the wait, once.
    const events = await testPrisma().event.findMany({ where: { workspaceId: h.workspaceId, type: "budget.reached" } });
    expect(events.map((event) => (event.payload as { data: { wait_id: string } }).data.wait_id)).toEqual([wait.id]);

    const approved = await as("owner").post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ reason: "budget", decision: "approved" });
    // The budget set, and the decision (with its reason), each in one audit row.
    expect((await auditOf(set.body.id)).map((row) => [row.action, row.actorKind, row.details])).toEqual([
      [
        "budget.set",
        "person",
        { flow_id: null, flow_name: null, metric: "tokens", period: "day", limit: 10, previous_limit: null },
      ],
    ]);
    expect((await auditOf(wait.id)).map((row) => [row.action, row.details])).toEqual([
      ["wait.approved", { run_id: null, agent_run_id: id, node_id: null, reason: "budget", commented: false }],
    ]);
    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({ status: "success", answer: "Noted: green." });
    expect(provider.calls).toHaveLength(2);
    // Each call answered is counted once: 36 tokens spent.
    const after = await as("owner").get("/api/usage/budgets");
    expect(after.body.items).toMatchObject([{ id: set.body.id, spent: 36, reached: true }]);

    // The replay fixture of an agent run held by a budget (worker/workflows/workflows.replay.test.ts).
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL(
        "../../../worker/workflows/histories/budgets.agentRun.paused-then-approved.json",
        import.meta.url,
      );
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });

  it("stop an agent whose admin rejects the call: it ends cancelled without calling the model", async () => {
    provider.script("openai", openAiAnswer({ text: "never sent" }));
    const id = await startAgent("budget-stop");
    const wait = await budgetWaitOf(id);
    const stopped = await as("owner").post(`/api/waits/${wait.id}/decision`, { decision: "reject", comment: "no" });
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    const stop = await auditOf(wait.id);
    expect(stop.map((row) => [row.action, (row.details as { reason: string }).reason])).toEqual([
      ["wait.rejected", "budget"],
    ]);
    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({
      status: "cancelled",
      reason: "budget",
      answer: null,
      error: { message: "An admin stopped the agent at its budget" },
    });
    expect(ended.steps).toEqual([]);
    expect(provider.calls).toHaveLength(0);
  });

  it("let calls run again once the budget is raised", async () => {
    const raised = await as("owner").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 1000 });
    expect(raised.body).toMatchObject({ limit: 1000, reached: false });
    // The same limit again changes nothing and writes nothing.
    expect((await as("owner").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 1000 })).status).toBe(
      200,
    );
    provider.script("openai", openAiAnswer({ text: "Fine." }));
    const id = await startAgent("budget-raised");
    expect((await agentRunEnd(id)).agent_run).toMatchObject({ status: "success", answer: "Fine." });
    expect(await testPrisma().wait.count({ where: { agentRunId: id } })).toBe(0);
    const removed = await as("owner").delete(`/api/usage/budgets/${raised.body.id}`);
    expect(removed.status).toBe(204);
    expect((await as("owner").get("/api/usage/budgets")).body.items).toEqual([]);
    const budgetRows = await auditOf(raised.body.id);
    expect(budgetRows.map((row) => [row.action, (row.details as { limit: number }).limit, row.details])).toMatchObject([
      ["budget.set", 10, {}],
      ["budget.set", 1000, { previous_limit: 10 }],
      ["budget.removed", 1000, { metric: "tokens", period: "day" }],
    ]);
  });
  it("approve an agent's held call once a raise leaves the budget under its limit, audited as the raise's", async () => {
    // 18 tokens spent with no budget set, then a budget of 1: reached.
    provider.script("openai", openAiAnswer({ text: "Warm." }));
    expect((await agentRunEnd(await startAgent("budget-warm"))).agent_run.status).toBe("success");
    const set = await as("owner").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 1 });
    expect(set.body).toMatchObject({ reached: true });
    provider.script("openai", openAiAnswer({ text: "Lifted." }));
    const id = await startAgent("budget-lifted");
    const wait = await budgetWaitOf(id);
    expect(provider.calls).toHaveLength(1);

    const raised = await as("owner").put("/api/usage/budgets", {
      metric: "tokens",
      period: "day",
      limit: (set.body.spent as number) + 1000,
    });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    expect((await agentRunEnd(id)).agent_run).toMatchObject({ status: "success", answer: "Lifted." });
    expect(await testPrisma().wait.findUniqueOrThrow({ where: { id: wait.id } })).toMatchObject({
      status: "decided",
      decision: "approved",
    });
    const session = await as("owner").get("/api/auth/session");
    const rows = await auditOf(wait.id);
    expect(rows.map((row) => [row.action, row.actorKind, row.actorId, row.details])).toEqual([
      [
        "wait.approved",
        "person",
        session.body.user.id,
        expect.objectContaining({ agent_run_id: id, reason: "budget", cause: "budget_raised", budget_id: set.body.id }),
      ],
    ]);
    expect(JSON.stringify(rows)).not.toContain("Remember the colour");
    expect((await as("owner").delete(`/api/usage/budgets/${set.body.id}`)).status).toBe(204);
  });
  it("approve a held call when an API token with the admin scope raises the budget: the token decides", async () => {
    provider.script("openai", openAiAnswer({ text: "Warm." }));
    expect((await agentRunEnd(await startAgent("budget-token-warm"))).agent_run.status).toBe("success");
    const set = await as("owner").put("/api/usage/budgets", { metric: "tokens", period: "day", limit: 1 });
    expect(set.body).toMatchObject({ reached: true });
    const token = await as("owner").post("/api/workspace/tokens", { name: "Budget bot", scopes: ["admin"] });
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    provider.script("openai", openAiAnswer({ text: "Freed." }));
    const id = await startAgent("budget-token");
    const wait = await budgetWaitOf(id);

    const raised = await request(h.app)
      .put("/api/usage/budgets")
      .set("Authorization", `Bearer ${token.body.token}`)
      .send({ metric: "tokens", period: "day", limit: (set.body.spent as number) + 1000 });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    expect((await agentRunEnd(id)).agent_run).toMatchObject({ status: "success", answer: "Freed." });
    expect(await testPrisma().wait.findUniqueOrThrow({ where: { id: wait.id } })).toMatchObject({
      decision: "approved",
      decidedBy: token.body.id,
      decidedByName: "Budget bot",
    });
    const rows = await auditOf(wait.id);
    expect(rows.map((row) => [row.action, row.actorKind, row.actorId])).toEqual([
      ["wait.approved", "token", token.body.id],
    ]);
    expect(JSON.stringify(rows)).not.toContain(token.body.token);
    expect((await as("owner").delete(`/api/usage/budgets/${set.body.id}`)).status).toBe(204);
  });
});
