// Agent runs through the API on a real worker and dev server, against a loopback provider
// speaking the OpenAI and Anthropic protocols with scripted tool calls.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { plainJson } from "../../../lib/crypto/sealed-json.js";
import {
  anthropicAnswer,
  openAiAnswer,
  providerFailure,
  startFakeProvider,
} from "../../../test/helpers/fake-llm-provider.js";
import { startLoopbackServer } from "../../../test/helpers/loopback-server.js";
import { readAllPages } from "../../../test/helpers/pages.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { systemClock } from "../../../lib/clock.js";
import { reconcileRuns } from "../../../worker/reconcile-runs.js";
import { createBlobStore } from "../../../core/runs/records/blobs.js";

const provider = await startFakeProvider();
const targetHits: Array<{ url?: string; key?: string }> = [];
const target = await startLoopbackServer((req, res) => {
  targetHits.push({ url: req.url, key: req.headers["idempotency-key"] as string | undefined });
  res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ forecast: "sunny", temp: 21 }));
});
afterAll(() => {
  provider.close();
  target.close();
});
const h = useRunHarness({
  config: {
    OPENAI_API_KEY: "sk-test-openai-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: provider.url,
    EGRESS_ALLOWLIST: "127.0.0.1",
    // A server without the key that seals workspaces' keys (the last test checks it refuses to store one).
    SVC_ENCRYPTION_KEY: "",
  },
});
beforeEach(() => {
  provider.reset();
  targetHits.length = 0;
});

const runAgent = (body: object) => request(h.app).post("/api/agent/run").set("Cookie", h.cookie).send(body);
const getAgentRun = async (id: string) => {
  const res = await request(h.app).get(`/api/agent/runs/${id}`).set("Cookie", h.cookie);
  expect(res.status).toBe(200);
  return res.body as {
    agent_run: Record<string, unknown> & { status: string; usage: Record<string, number> };
    steps: Array<{ number: number; kind: string; name: string; error: string | null; output: unknown }>;
  };
};
/** The harness's person, as the audit log names them. */
const me = async () =>
  (await request(h.app).get("/api/auth/session").set("Cookie", h.cookie)).body.user as { id: string; email: string };
/** The messages the provider received in its n-th call (OpenAI protocol). */
const sentMessages = (n: number) => provider.calls[n]!.body.messages as Array<Record<string, unknown>>;
const toolResults = (n: number) =>
  sentMessages(n)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));

describe("agent runs", () => {
  it("runs a tool-use loop with every tool, flow.run included, and answers", async () => {
    const flowId = await h.createFlow(flow([{ id: "echo", type: "debug" }], [["start", "echo"]]), "Doubler");
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [
          { name: "memory_write", arguments: JSON.stringify({ key: "fav", value: { color: "green" } }) },
          { name: "log_write", arguments: JSON.stringify({ message: "starting", level: "info" }) },
        ],
      }),
      openAiAnswer({
        toolCalls: [
          { name: "memory_read", arguments: JSON.stringify({ key: "fav" }) },
          { name: "http_call", arguments: JSON.stringify({ url: `${target.url}/weather?city=Paris` }) },
        ],
      }),
      openAiAnswer({
        toolCalls: [{ name: "flow_run", arguments: JSON.stringify({ flow_id: flowId, input: { n: 21 } }) }],
      }),
      openAiAnswer({
        toolCalls: [
          { name: "launch_rockets", arguments: "{}" },
          { name: "memory_write", arguments: "{oops" },
          { name: "memory_read", arguments: JSON.stringify({ nope: 1 }) },
        ],
      }),
      openAiAnswer({ text: "Green, sunny, and the flow said 21." }),
    );
    const res = await runAgent({
      agent: "assistant",
      instructions: "Check the weather and run the doubler",
      provider: "openai",
      model: "gpt-test",
      wait: 30_000,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: "success",
      reason: "answered",
      answer: "Green, sunny, and the flow said 21.",
      steps: 5,
      usage: { input_tokens: 55, output_tokens: 35, total_tokens: 90 },
    });
    const id = res.body.agent_run_id as string;
    expect(id).toMatch(/^agr_/);

    // What the model saw: the tools under protocol-safe names, and each result in turn.
    expect(provider.calls).toHaveLength(5);
    const tools = (provider.calls[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(tools.sort()).toEqual(["flow_run", "http_call", "log_write", "memory_read", "memory_write"]);
    expect(sentMessages(0)[1]).toEqual({ role: "user", content: "Check the weather and run the doubler" });
    expect(toolResults(1)).toHaveLength(2);
    const [memoryRead, weather] = toolResults(2).slice(2);
    expect(JSON.parse(memoryRead!)).toMatchObject({ found: true, value: { color: "green" } });
    expect(JSON.parse(weather!)).toMatchObject({ status: 200, body: { forecast: "sunny" } });
    const flowResult = JSON.parse(toolResults(3).at(-1)!);
    expect(flowResult).toMatchObject({ status: "success", output: { n: 21 } });
    const errors = toolResults(4)
      .slice(-3)
      .map((text) => JSON.parse(text).error as string);
    expect(errors[0]).toMatch(/unknown tool "launch_rockets"/);
    expect(errors[1]).toMatch(/not valid JSON/);
    expect(errors[2]).toMatch(/invalid arguments for memory_read/);

    // The step log, the child flow run, the HTTP call, memory, the agent log and the event.
    const detail = await getAgentRun(id);
    expect(detail.agent_run).toMatchObject({ status: "success", steps: 5, usage: { total_tokens: 90 } });
    expect(detail.steps.map((s) => `${s.kind}:${s.name}${s.error ? "!" : ""}`)).toEqual([
      "model:gpt-test",
      "tool:memory.write",
      "tool:log.write",
      "model:gpt-test",
      "tool:memory.read",
      "tool:http.call",
      "model:gpt-test",
      "tool:flow.run",
      "model:gpt-test",
      "tool:launch_rockets!",
      "tool:memory.write!",
      "tool:memory.read!",
      "model:gpt-test",
    ]);
    const childRunId = (detail.steps[7]!.output as { run_id: string }).run_id;
    const child = await testPrisma().run.findUniqueOrThrow({ where: { id: childRunId } });
    expect(child).toMatchObject({ flowId, trigger: "agent", status: "success" });
    expect(targetHits).toEqual([{ url: "/weather?city=Paris", key: `${id}:6` }]);

    const memory = await request(h.app).get("/api/agent/memory?agent=assistant&key=fav").set("Cookie", h.cookie);
    expect(memory.body).toMatchObject({ value: { color: "green" }, agent_run_id: id });
    const logs = await request(h.app).get(`/api/agent/logs?agent_run_id=${id}`).set("Cookie", h.cookie);
    expect(logs.body.items.map((entry: { message: string }) => entry.message)).toEqual([
      "agent run ended: success (answered)",
      "starting",
      "agent run started",
    ]);
    const events = await testPrisma().event.findMany({
      where: { workspaceId: h.workspaceId, type: "agent.completed" },
    });
    const event = events.find((e) => (e.payload as { data: { agent_run_id: string } }).data.agent_run_id === id);
    expect((event!.payload as { data: unknown }).data).toMatchObject({
      agent_run_id: id,
      agent_id: "assistant",
      status: "success",
      steps: 5,
      usage: { total_tokens: 90 },
      duration_ms: expect.any(Number),
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
  });

  it("keeps memory across agent runs, scoped by agent, over the Anthropic protocol", async () => {
    provider.script(
      "anthropic",
      anthropicAnswer({ toolUses: [{ name: "memory_write", input: { key: "city", value: "Lyon" } }] }),
      anthropicAnswer({ text: "Noted." }),
    );
    const first = await runAgent({
      agent: "researcher",
      input: "Remember Lyon",
      provider: "anthropic",
      model: "claude-test",
      wait: 20_000,
    });
    expect(first.body).toMatchObject({ status: "success", answer: "Noted." });

    provider.script(
      "anthropic",
      anthropicAnswer({
        toolUses: [
          { name: "memory_read", input: { key: "city" } },
          { name: "flow_run", input: { flow_id: "wf_x" } },
        ],
      }),
      anthropicAnswer({ text: "You said Lyon." }),
    );
    const second = await runAgent({
      agent: "researcher",
      instructions: "Which city?",
      provider: "anthropic",
      model: "claude-test",
      wait: 20_000,
    });
    expect(second.body).toMatchObject({ status: "success", answer: "You said Lyon." });
    // The tool results travel in one user message of tool_result blocks.
    const messages = provider.calls[3]!.body.messages as Array<{ role: string; content: unknown }>;
    const results = messages.at(-1)!.content as Array<{ type: string; content: string }>;
    expect(results.map((r) => r.type)).toEqual(["tool_result", "tool_result"]);
    expect(JSON.parse(results[0]!.content)).toMatchObject({ found: true, value: "Lyon" });
    // The researcher preset has no flow.run.
    expect(JSON.parse(results[1]!.content).error).toMatch(/unknown tool "flow_run"/);
    expect((provider.calls[3]!.body.tools as Array<{ name: string }>).map((t) => t.name)).not.toContain("flow_run");

    // Written by the first run; another agent's memory is separate; the API writes too.
    const read = await request(h.app).get("/api/agent/memory?agent=researcher").set("Cookie", h.cookie);
    expect(read.body.items).toEqual([
      expect.objectContaining({ key: "city", value: "Lyon", agent_run_id: first.body.agent_run_id }),
    ]);
    const other = await request(h.app).get("/api/agent/memory?agent=assistant&key=city").set("Cookie", h.cookie);
    expect(other.status).toBe(404);
    const written = await request(h.app)
      .post("/api/agent/memory")
      .set("Cookie", h.cookie)
      .send({ agent: "researcher", key: "city", value: { name: "Nice" } });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ value: { name: "Nice" }, agent_run_id: null, written_by: expect.any(String) });
  });

  it("ends with a stated reason at the step limit, the token limit, and on a provider's 401", async () => {
    const again = () =>
      openAiAnswer(
        { toolCalls: [{ name: "log_write", arguments: JSON.stringify({ message: "again" }) }] },
        { prompt_tokens: 40, completion_tokens: 20 },
      );
    provider.script("openai", again(), again(), again());
    const stepped = await runAgent({ instructions: "loop", model: "gpt-test", limits: { max_steps: 2 }, wait: 20_000 });
    expect(stepped.body).toMatchObject({
      status: "failed",
      reason: "max_steps",
      steps: 2,
      usage: { total_tokens: 120 },
    });

    provider.reset();
    provider.script("openai", again(), again(), again());
    const tokens = await runAgent({
      instructions: "loop",
      model: "gpt-test",
      limits: { max_tokens: 100 },
      wait: 20_000,
    });
    expect(tokens.body).toMatchObject({ status: "failed", reason: "max_tokens", steps: 2 });
    expect(tokens.body.error.message).toMatch(/120 tokens/);

    provider.reset();
    provider.script("anthropic", providerFailure("anthropic", 401, "invalid x-api-key"));
    const refused = await runAgent({ instructions: "hi", provider: "anthropic", model: "claude-test", wait: 20_000 });
    expect(refused.body).toMatchObject({ status: "failed", reason: "provider_error" });
    expect(refused.body.error.message).toMatch(/401.*invalid x-api-key/);
    expect(provider.calls).toHaveLength(1);
  });

  it("retries a rate-limited model call, and answers 202 without wait", async () => {
    provider.script("openai", providerFailure("openai", 429, "Rate limit reached"), openAiAnswer({ text: "ok" }));
    const res = await runAgent({ instructions: "hi", model: "gpt-test" });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "running", status_url: `/api/agent/runs/${res.body.agent_run_id}` });
    const deadline = Date.now() + 30_000;
    let detail = await getAgentRun(res.body.agent_run_id);
    while (detail.agent_run.status === "running" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      detail = await getAgentRun(res.body.agent_run_id);
    }
    expect(detail.agent_run).toMatchObject({ status: "success", answer: "ok" });
    expect(provider.calls).toHaveLength(2);
  });

  it("runs an ai.agent node of a flow as a child agent run, and fails the node when the agent hits a limit", async () => {
    const definition = flow(
      [
        {
          id: "think",
          type: "ai.agent",
          config: { instructions: "Summarise {{ input.topic }}", model: "gpt-test", tools: ["memory.write"] },
        },
        { id: "after", type: "debug" },
      ],
      [
        ["start", "think"],
        ["think", "after"],
      ],
    );
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "topic", value: "durability" }) }],
      }),
      openAiAnswer({ text: "Durable means it survives." }),
    );
    const run = await h.runToEnd(await h.createFlow(definition, "Agentic"), { topic: "durability" });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toMatchObject({ answer: "Durable means it survives.", reason: "answered", steps: 2 });
    const agentRunId = (run.output as { agent_run_id: string }).agent_run_id;
    const detail = await getAgentRun(agentRunId);
    expect(detail.agent_run).toMatchObject({ status: "success", parent_run_id: run.id, tools: ["memory.write"] });
    expect(sentMessages(0).at(-1)).toEqual({ role: "user", content: "Summarise durability" });
    const steps = await h.steps(run.id);
    expect(steps.find((s) => s.node_id === "think")).toMatchObject({ status: "success", attempt: 1 });

    provider.reset();
    const limited = structuredClone(definition);
    (limited.nodes[1]!.config as Record<string, unknown>).max_steps = 1;
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "k", value: 1 }) }] }),
    );
    const failed = await h.runToEnd(await h.createFlow(limited, "Agentic, limited"), { topic: "x" });
    expect(failed.status).toBe("failed");
    expect(JSON.stringify(failed.error)).toMatch(/max_steps/);
    expect(provider.calls).toHaveLength(1);
  });

  it("cancels a running agent run, and reconciles one whose workflow an operator terminated", async () => {
    const slow = await startLoopbackServer((_req, res) => {
      setTimeout(() => res.writeHead(200).end("{}"), 1500);
    });
    try {
      const slowCall = () =>
        openAiAnswer({ toolCalls: [{ name: "http_call", arguments: JSON.stringify({ url: `${slow.url}/x` }) }] });
      provider.script("openai", slowCall(), slowCall());
      const cancelled = await runAgent({ instructions: "wait", model: "gpt-test" });
      const id = cancelled.body.agent_run_id as string;
      await expect.poll(() => provider.calls.length, { timeout: 15_000 }).toBe(1);
      const cancel = await request(h.app).post(`/api/agent/runs/${id}/cancel`).set("Cookie", h.cookie);
      expect(cancel.status).toBe(202);
      await expect.poll(async () => (await getAgentRun(id)).agent_run.status, { timeout: 15_000 }).toBe("cancelled");
      expect((await getAgentRun(id)).agent_run.reason).toBe("cancelled");
      const again = await request(h.app).post(`/api/agent/runs/${id}/cancel`).set("Cookie", h.cookie);
      expect([again.status, again.body.code]).toEqual([409, "not_running"]);

      const terminated = await runAgent({ instructions: "wait", model: "gpt-test" });
      const other = terminated.body.agent_run_id as string;
      await expect.poll(() => provider.calls.length, { timeout: 15_000 }).toBe(2);
      await h.deps.temporal.workflow.getHandle(other).terminate("operator stopped it");
      const ended = await reconcileRuns(
        {
          prisma: testPrisma(),
          clock: systemClock,
          temporal: h.deps.temporal,
          // As this harness's processes: no SVC_ENCRYPTION_KEY, records stored plain.
          blobs: createBlobStore({ prisma: testPrisma(), offloadBytes: 262_144, seal: plainJson }),
        },
        { minAgeMs: 0 },
      );
      expect(ended).toBeGreaterThanOrEqual(1);
      expect((await getAgentRun(other)).agent_run).toMatchObject({
        status: "failed",
        reason: "workflow_closed",
        error: { message: "The agent run's workflow was terminated" },
      });
    } finally {
      slow.close();
    }
  });

  it("writes agent_run.cancelled naming who cancelled which agent run, and nothing of its instructions", async () => {
    const slow = await startLoopbackServer((_req, res) => {
      setTimeout(() => res.writeHead(200).end("{}"), 1500);
    });
    try {
      provider.script(
        "openai",
        openAiAnswer({ toolCalls: [{ name: "http_call", arguments: JSON.stringify({ url: `${slow.url}/x` }) }] }),
      );
      const instructions = "audit-instructions-never-in-a-row";
      const started = await runAgent({ agent: "audited", instructions, model: "gpt-test" });
      const id = started.body.agent_run_id as string;
      await expect.poll(() => provider.calls.length, { timeout: 15_000 }).toBe(1);
      const cancel = await request(h.app)
        .post(`/api/agent/runs/${id}/cancel`)
        .set("Cookie", h.cookie)
        .set("User-Agent", "audit-agent-cancel");
      expect(cancel.status).toBe(202);
      await expect.poll(async () => (await getAgentRun(id)).agent_run.status, { timeout: 15_000 }).toBe("cancelled");
      // A refused second cancel writes nothing.
      expect((await request(h.app).post(`/api/agent/runs/${id}/cancel`).set("Cookie", h.cookie)).status).toBe(409);

      const rows = await testPrisma().auditEvent.findMany({ where: { workspaceId: h.workspaceId, objectId: id } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        action: "agent_run.cancelled",
        actorKind: "person",
        actorId: (await me()).id,
        objectKind: "agent_run",
        userAgent: "audit-agent-cancel",
        details: { agent: "audited", model: "gpt-test", parent_run_id: null, flow_id: null },
      });
      expect(JSON.stringify(rows)).not.toContain(instructions);
    } finally {
      slow.close();
    }
  });

  it("writes agent_memory.written per write through the API: the agent and the key's name, never the value", async () => {
    const value = { note: "memory-value-never-in-a-row" };
    const written = await request(h.app)
      .post("/api/agent/memory")
      .set("Cookie", h.cookie)
      .send({ agent: "audited-memory", key: "customer:42", value });
    expect(written.status).toBe(200);
    // A refused write (no value over the limit is stored) writes no row.
    const tooLarge = await request(h.app)
      .post("/api/agent/memory")
      .set("Cookie", h.cookie)
      .send({ agent: "audited-memory", key: "big", value: "x".repeat(300 * 1024) });
    expect(tooLarge.status).toBe(413);

    const rows = await testPrisma().auditEvent.findMany({
      where: { workspaceId: h.workspaceId, action: "agent_memory.written", objectId: "audited-memory" },
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorKind: "person",
      actorId: (await me()).id,
      objectKind: "agent",
      details: { agent: "audited-memory", key: "customer:42" },
    });
    expect(JSON.stringify(rows)).not.toContain(value.note);
  });

  it("pages an agent's memory in key order, under a prefix too", async () => {
    for (const key of ["note:b", "note:a", "todo:1", "note:c", "note:d"]) {
      const res = await request(h.app)
        .post("/api/agent/memory")
        .set("Cookie", h.cookie)
        .send({ agent: "pager", key, value: key.length });
      expect(res.status).toBe(200);
    }
    const all = await readAllPages<{ key: string }>(h.app, h.cookie, "/api/agent/memory?agent=pager&limit=2");
    expect([all.items.map((m) => m.key), all.pages]).toEqual([["note:a", "note:b", "note:c", "note:d", "todo:1"], 3]);
    const notes = await readAllPages<{ key: string }>(
      h.app,
      h.cookie,
      "/api/agent/memory?agent=pager&prefix=note:&limit=3",
    );
    expect([notes.items.map((m) => m.key), notes.pages]).toEqual([["note:a", "note:b", "note:c", "note:d"], 2]);
    const bad = await request(h.app).get("/api/agent/memory?agent=pager&cursor=e30").set("Cookie", h.cookie);
    expect([bad.status, bad.body.code]).toEqual([400, "bad_request"]);
  });

  it("refuses bad requests with 400 and unknown runs with 404", async () => {
    const cases = [
      {},
      { instructions: "" },
      { instructions: "x", tools: ["rm.rf"] },
      { instructions: "x", limits: { max_steps: 0 } },
      { instructions: "x", agent: "Bad Name" },
      { instructions: "x", provider: "acme" },
    ];
    for (const body of cases) {
      const res = await runAgent(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("validation_failed");
    }
    const missing = await request(h.app).get("/api/agent/runs/agr_000000000000000000000000").set("Cookie", h.cookie);
    expect([missing.status, missing.body.code]).toEqual([404, "not_found"]);
    const badMemory = await request(h.app).post("/api/agent/memory").set("Cookie", h.cookie).send({ key: "k" });
    expect(badMemory.status).toBe(400);
    // This server has no SVC_ENCRYPTION_KEY: workspaces cannot store keys.
    const noSecret = await request(h.app)
      .put("/api/workspace/ai-keys/openai")
      .set("Cookie", h.cookie)
      .send({ api_key: "sk-some-key-1234" });
    expect([noSecret.status, noSecret.body.code]).toEqual([409, "ai_keys_disabled"]);
  });
});
