// Agent tool approvals on a real worker and dev server: a call of a tool in approval_tools waits
// in the inbox (a wait row, no tool step) until a member decides it through the waits API.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testPrisma, openedWait } from "../../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { exportedHistory } from "../../../test/helpers/histories.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` },
});
beforeEach(() => provider.reset());

type Role = "owner" | "editor" | "viewer";
const cookies = {} as Record<Role, string>;
const ids = {} as Record<Role, string>;

beforeAll(async () => {
  const session = await request(h.app).get("/api/auth/session").set("Cookie", h.cookie);
  cookies.owner = h.cookie;
  ids.owner = session.body.user.id;
  for (const role of ["editor", "viewer"] as const) {
    const member = await createTestUser(role);
    await testPrisma().membership.create({ data: { userId: member.user.id, workspaceId: h.workspaceId, role } });
    cookies[role] = (await login(h.app, member.email, undefined, { workspaceId: h.workspaceId })).cookie;
    ids[role] = member.user.id;
  }
});

const as = (role: Role) => ({
  get: (path: string) => request(h.app).get(path).set("Cookie", cookies[role]),
  post: (path: string, body?: object) => request(h.app).post(path).set("Cookie", cookies[role]).send(body),
});

const getAgentRun = async (id: string) => {
  const res = await as("owner").get(`/api/agent/runs/${id}`);
  expect(res.status).toBe(200);
  return res.body as {
    agent_run: Record<string, unknown> & { status: string; reason: string | null };
    steps: Array<{ number: number; kind: string; name: string; error: string | null; output: unknown }>;
  };
};

/** Polls the agent run until it has ended (at most 150 reads, 100 ms apart). */
async function agentRunEnd(id: string) {
  for (let tries = 0; tries < 150; tries++) {
    const detail = await getAgentRun(id);
    if (detail.agent_run.status !== "running") return detail;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${id} still running`);
}

/** Polls for the agent run's wait with `status` (at most 150 reads, 100 ms apart). */
async function waitOf(agentRunId: string, status = "pending") {
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { agentRunId, status: status as "pending" } });
    // Its message and proposed arguments are stored sealed (run payloads at rest): read opened.
    if (wait) return openedWait(wait);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${agentRunId} has no ${status} wait`);
}

const memoryWrite = (key: string, value: unknown) =>
  openAiAnswer({ toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key, value }) }] });

/** Starts an agent run (202, no wait) whose memory.write calls need approval. */
async function startGated(body: object = {}) {
  const res = await as("owner").post("/api/agent/run", {
    agent: "approver-test",
    instructions: "Remember the colour",
    provider: "openai",
    model: "gpt-test",
    tools: ["memory.write", "memory.read"],
    approval_tools: ["memory.write"],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.agent_run_id as string;
}

const sentToolResults = (n: number) =>
  (provider.calls[n]!.body.messages as Array<Record<string, unknown>>)
    .filter((m) => m.role === "tool")
    .map((m) => JSON.parse(String(m.content)) as Record<string, unknown>);

describe("agent tool approvals", () => {
  it("pauses before the call, outlives a worker restart, and runs the tool once an editor approves", async () => {
    provider.script("openai", memoryWrite("colour", "green"), openAiAnswer({ text: "Noted: green." }));
    const id = await startGated();
    const wait = await waitOf(id);
    expect(wait).toMatchObject({ runId: null, agentRunId: id, toolName: "memory.write", mode: "approval" });
    expect(JSON.parse(wait.toolArguments!)).toEqual({ key: "colour", value: "green" });

    // Paused: one model call, no tool step, nothing written.
    const paused = await getAgentRun(id);
    expect(paused.agent_run).toMatchObject({ status: "running", approval_tools: ["memory.write"] });
    expect(paused.steps.map((s) => s.kind)).toEqual(["model"]);
    expect(provider.calls).toHaveLength(1);
    const memory = { workspaceId: h.workspaceId, agentId: "approver-test", key: "colour" };
    expect(await testPrisma().agentMemory.findFirst({ where: memory })).toBeNull();

    // The inbox shows it to an editor, not to a viewer; the run's page lists it.
    const inbox = await as("editor").get("/api/waits?limit=200");
    expect(inbox.status).toBe(200);
    expect(inbox.body.items.find((item: { id: string }) => item.id === wait.id)).toMatchObject({
      run_id: null,
      flow_id: null,
      agent_run_id: id,
      agent_id: "approver-test",
      tool: { name: "memory.write", arguments: { key: "colour", value: "green" } },
      mode: "approval",
      status: "pending",
      can_decide: true,
    });
    const viewerInbox = await as("viewer").get("/api/waits?limit=200");
    expect(viewerInbox.body.items.map((item: { id: string }) => item.id)).not.toContain(wait.id);
    const listed = await as("viewer").get(`/api/agent/runs/${id}/waits`);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toMatchObject([{ id: wait.id, status: "pending", can_decide: false }]);

    // A viewer may not decide.
    const refused = await as("viewer").post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(refused.status).toBe(403);

    // The wait lives in the workflow's history, not in a worker's memory.
    await h.restartWorker();

    const approved = await as("editor").post(`/api/waits/${wait.id}/decision`, { decision: "approve", comment: "ok" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({
      id: wait.id,
      agent_run_id: id,
      status: "decided",
      decision: "approved",
      comment: "ok",
      decided_by: { id: ids.editor },
    });
    const again = await as("owner").post(`/api/waits/${wait.id}/decision`, { decision: "reject" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "wait_decided", decision: "approved" });

    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({ status: "success", reason: "answered", answer: "Noted: green." });
    expect(ended.steps.map((s) => `${s.kind}:${s.name}${s.error ? "!" : ""}`)).toEqual([
      "model:gpt-test",
      "approval:memory.write",
      "tool:memory.write",
      "model:gpt-test",
    ]);
    expect(ended.steps[1]!.output).toMatchObject({
      decision: "approved",
      comment: "ok",
      decided_by: { id: ids.editor },
    });
    expect(sentToolResults(1)).toEqual([{ key: "colour", written: true }]);
    expect(await testPrisma().agentMemory.findFirst({ where: memory })).toMatchObject({ value: "green" });

    // The API showed it all; the run's records hold it only sealed (README: "Data at rest").
    const stored = await testPrisma().$queryRaw<Array<{ row: string }>>`
      SELECT t::text AS row FROM agent_runs t WHERE id = ${id}
      UNION ALL SELECT t::text FROM agent_steps t WHERE agent_run_id = ${id}
      UNION ALL SELECT t::text FROM agent_logs t WHERE agent_run_id = ${id}
      UNION ALL SELECT t::text FROM waits t WHERE agent_run_id = ${id}`;
    expect(stored.length).toBeGreaterThan(6);
    const text = stored.map((r) => r.row).join("\n");
    expect(
      ["Remember the colour", "Noted: green.", "green", "asks to call"].filter((plain) => text.includes(plain)),
    ).toEqual([]);
  });

  it("feeds a rejection back to the model as the tool's result, and the run goes on", async () => {
    provider.script("openai", memoryWrite("colour", "red"), openAiAnswer({ text: "I did not store it." }));
    const id = await startGated({ agent: "rejecter-test" });
    const wait = await waitOf(id);
    const rejected = await as("owner").post(`/api/waits/${wait.id}/decision`, {
      decision: "reject",
      comment: "not red",
    });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ decision: "rejected", comment: "not red" });

    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({ status: "success", answer: "I did not store it." });
    expect(ended.steps.map((s) => `${s.kind}:${s.name}`)).toEqual([
      "model:gpt-test",
      "approval:memory.write",
      "model:gpt-test",
    ]);
    expect(ended.steps[1]!.output).toMatchObject({ decision: "rejected", comment: "not red" });
    expect(sentToolResults(1)).toEqual([{ rejected: true, comment: "not red" }]);
    const memory = { workspaceId: h.workspaceId, agentId: "rejecter-test", key: "colour" };
    expect(await testPrisma().agentMemory.findFirst({ where: memory })).toBeNull();
  });

  it("runs tools that need no approval straight away, and ends as timed out when nobody decides in time", async () => {
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "memory_read", arguments: JSON.stringify({ key: "colour" }) }] }),
      memoryWrite("colour", "blue"),
    );
    const id = await startGated({ agent: "timeout-test", limits: { timeout_ms: 4000 } });
    const wait = await waitOf(id);
    expect(wait.expiresAt).not.toBeNull();
    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({
      status: "failed",
      reason: "timeout",
      error: { message: expect.stringMatching(/waiting for a decision on memory\.write/) },
    });
    expect(ended.steps.map((s) => `${s.kind}:${s.name}${s.error ? "!" : ""}`)).toEqual([
      "model:gpt-test",
      "tool:memory.read",
      "model:gpt-test",
      "approval:memory.write!",
    ]);
    expect(await testPrisma().wait.findUnique({ where: { id: wait.id } })).toMatchObject({ status: "expired" });
    const late = await as("owner").post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("wait_expired");
  });

  it("asks nobody about a call whose arguments its tool refuses: the error goes back to the model", async () => {
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ nope: 1 }) }] }),
      openAiAnswer({ text: "Gave up." }),
    );
    const id = await startGated({ agent: "invalid-test" });
    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({ status: "success", answer: "Gave up." });
    expect(ended.steps.map((s) => `${s.kind}:${s.name}${s.error ? "!" : ""}`)).toEqual([
      "model:gpt-test",
      "tool:memory.write!",
      "model:gpt-test",
    ]);
    expect(String(sentToolResults(1)[0]!.error)).toMatch(/invalid arguments for memory_write/);
    expect(await testPrisma().wait.count({ where: { agentRunId: id } })).toBe(0);
  });

  it("closes the pending approval with a cancelled run", async () => {
    provider.script("openai", memoryWrite("colour", "grey"));
    const id = await startGated({ agent: "cancel-test" });
    const wait = await waitOf(id);
    const cancel = await as("owner").post(`/api/agent/runs/${id}/cancel`);
    expect(cancel.status).toBe(202);
    expect((await agentRunEnd(id)).agent_run.status).toBe("cancelled");
    expect(await testPrisma().wait.findUnique({ where: { id: wait.id } })).toMatchObject({ status: "cancelled" });
    const late = await as("owner").post(`/api/waits/${wait.id}/decision`, { decision: "approve" });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("wait_cancelled");
  });

  it("pauses an ai.agent node's agent until approved; the node refuses approval tools its agent lacks", async () => {
    const definition = flow(
      [
        {
          id: "think",
          type: "ai.agent",
          config: {
            agent: "node-approval-test",
            instructions: "Remember {{ input.colour }}",
            provider: "openai",
            model: "gpt-test",
            tools: ["memory.write"],
            approval_tools: ["memory.write"],
          },
        },
      ],
      [["start", "think"]],
    );
    provider.script("openai", memoryWrite("colour", "teal"), openAiAnswer({ text: "Stored teal." }));
    const started = await h.startRun(await h.createFlow(definition, "Agent with approvals"), { colour: "teal" });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run_id as string;
    let agentRunId: string | undefined;
    for (let tries = 0; tries < 150 && !agentRunId; tries++) {
      agentRunId = (await testPrisma().agentRun.findFirst({ where: { parentRunId: runId } }))?.id;
      if (!agentRunId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(agentRunId).toBeDefined();
    const wait = await waitOf(agentRunId!);
    expect(wait).toMatchObject({ runId: null, toolName: "memory.write" });
    expect((await as("owner").get(`/api/runs/${runId}`)).body.run.status).toBe("running");
    expect((await as("editor").post(`/api/waits/${wait.id}/decision`, { decision: "approve" })).status).toBe(200);
    const run = await h.waitForEnd(runId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toMatchObject({ agent_run_id: agentRunId, answer: "Stored teal." });

    const lacking = structuredClone(definition);
    (lacking.nodes[1]!.config as Record<string, unknown>).approval_tools = ["http.call"];
    const failed = await h.runToEnd(await h.createFlow(lacking, "Agent lacking its approval tool"));
    expect(failed.status).toBe("failed");
    expect(JSON.stringify(failed.error)).toMatch(/approval_tools: http\.call is not among the run's tools/);
  });

  // The replay fixture of an agent run with approvals (worker/workflows/workflows.replay.test.ts).
  // Set RECORD_HISTORY=1 to record it again, after a change that earlier histories must not see.
  it("records a run in which one call is rejected and the next approved", async () => {
    provider.script(
      "openai",
      memoryWrite("colour", "red"),
      memoryWrite("colour", "blue"),
      openAiAnswer({ text: "Stored blue." }),
    );
    const id = await startGated({ agent: "history-test" });
    const first = await waitOf(id);
    expect((await as("owner").post(`/api/waits/${first.id}/decision`, { decision: "reject" })).status).toBe(200);
    let second = first;
    for (let tries = 0; tries < 150 && second.id === first.id; tries++) {
      second = await waitOf(id);
      if (second.id === first.id) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(second.id).not.toBe(first.id);
    expect((await as("owner").post(`/api/waits/${second.id}/decision`, { decision: "approve" })).status).toBe(200);
    const ended = await agentRunEnd(id);
    expect(ended.agent_run).toMatchObject({ status: "success", answer: "Stored blue." });
    expect(ended.steps.map((s) => `${s.kind}:${s.name}`)).toEqual([
      "model:gpt-test",
      "approval:memory.write",
      "model:gpt-test",
      "approval:memory.write",
      "tool:memory.write",
      "model:gpt-test",
    ]);
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL(
        "../../../worker/workflows/histories/approvals.agentRun.rejected-then-approved.json",
        import.meta.url,
      );
      // Stack traces name the checkout: written as /app, as in the other fixtures.
      const checkout = fileURLToPath(new URL("../../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });

  it("refuses approval tools the run does not have", async () => {
    const res = await as("owner").post("/api/agent/run", {
      instructions: "x",
      tools: ["memory.read"],
      approval_tools: ["http.call"],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", error: expect.stringContaining("http.call") });
    expect(await testPrisma().agentRun.count({ where: { workspaceId: h.workspaceId, status: "running" } })).toBe(0);
  });
});
