// Agents using an MCP server's tools, on a real worker and dev server: a server built here with the
// SDK's own classes (McpServer, Streamable HTTP) on loopback, behind a bearer credential, with two
// tools: `lookup`, whose first call fails with a 500 and is retried, and `send`, behind approval.
// The stub provider calls both; the credential's secret is in no step, answer or history; an MCP
// server on a private address is refused by the egress guard, and the model is told.
import { randomBytes } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDataConverter } from "../../../core/engine/data-converter.js";
import { parseKeyRing, type RingKey } from "../../../lib/crypto/key-ring.js";
import { TEST_ENCRYPTION_KEY, testPrisma } from "../../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { exportedHistory, openedHistory, searchableText } from "../../../test/helpers/histories.js";
import { startMcpTestServer } from "../../../test/helpers/mcp-test-server.js";
import { useRunHarness } from "../../../test/helpers/runs.js";

const SECRET = `mcp-secret-${randomBytes(12).toString("hex")}`;

let failNextLookup = true;
const mcpServer = await startMcpTestServer({
  token: SECRET,
  tools(mcp) {
    mcp.registerTool(
      "lookup",
      { description: "Looks a term up.", inputSchema: { term: z.string() } },
      async ({ term }) => ({ content: [{ type: "text", text: `${term}: a colour` }] }),
    );
    mcp.registerTool(
      "send",
      { description: "Sends a message.", inputSchema: { to: z.string(), text: z.string() } },
      async ({ to }) => ({ content: [{ type: "text", text: `sent to ${to}` }], structuredContent: { sent: true } }),
    );
  },
});
// The first call of lookup meets a server that fails with a 500.
mcpServer.intercept = (call, _req, res) => {
  if (call.tool !== "lookup" || !failNextLookup) return false;
  failNextLookup = false;
  res.writeHead(500, { "content-type": "text/plain" }).end("the index is rebuilding");
  return true;
};
const seen = mcpServer;

const provider = await startFakeProvider();
afterAll(() => {
  provider.close();
  mcpServer.close();
});
const h = useRunHarness({
  config: {
    OPENAI_API_KEY: "sk-test-openai-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
    // Loopback allowed as for HTTP nodes' tests; private ranges are not.
    EGRESS_ALLOWLIST: "127.0.0.1",
  },
});
beforeEach(() => provider.reset());

let credentialId: string;
beforeAll(async () => {
  const res = await request(h.app)
    .post("/api/credentials")
    .set("Cookie", h.cookie)
    .send({ name: "KB", type: "bearer", data: { token: SECRET } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  credentialId = res.body.id;
});

const runAgent = (body: object) =>
  request(h.app)
    .post("/api/agent/run")
    .set("Cookie", h.cookie)
    .send({ agent: "mcp-test", provider: "openai", model: "gpt-test", tools: ["log.write"], ...body });

type Detail = {
  agent_run: Record<string, unknown> & { status: string; reason: string | null; answer: string | null };
  steps: Array<{ number: number; kind: string; name: string; error: string | null; output: unknown }>;
};
const getAgentRun = async (id: string) => {
  const res = await request(h.app).get(`/api/agent/runs/${id}`).set("Cookie", h.cookie);
  expect(res.status).toBe(200);
  return res.body as Detail;
};

/** Polls until the agent run has ended (at most 300 reads, 100 ms apart). */
async function agentRunEnd(id: string): Promise<Detail> {
  for (let tries = 0; tries < 300; tries++) {
    const detail = await getAgentRun(id);
    if (detail.agent_run.status !== "running") return detail;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${id} still running`);
}

/** Polls for the agent run's pending wait (at most 300 reads, 100 ms apart). */
async function pendingWait(agentRunId: string) {
  for (let tries = 0; tries < 300; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { agentRunId, status: "pending" } });
    if (wait) return wait;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent run ${agentRunId} has no pending wait`);
}

const sentMessages = (n: number) => provider.calls[n]!.body.messages as Array<Record<string, unknown>>;
const sentToolNames = (n: number) =>
  (provider.calls[n]!.body.tools as Array<{ function: { name: string } }> | undefined)?.map((t) => t.function.name) ??
  [];

describe("agents using MCP servers' tools", () => {
  it("lists the server's tools, retries a call that got a 500, waits for approval, and finishes", async () => {
    seen.calls.length = 0;
    failNextLookup = true;
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "kb__lookup", arguments: JSON.stringify({ term: "teal" }) }] }),
      openAiAnswer({ toolCalls: [{ name: "kb__send", arguments: JSON.stringify({ to: "ada", text: "teal" }) }] }),
      openAiAnswer({ text: "Teal is a colour; Ada knows." }),
    );
    const started = await runAgent({
      instructions: "Look up teal and tell Ada",
      mcp_servers: [{ url: mcpServer.endpoint, label: "kb", credential_id: credentialId, approval_tools: ["send"] }],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;

    const wait = await pendingWait(id);
    expect(wait).toMatchObject({ toolName: "kb__send", mode: "approval" });
    // Not sent before the decision.
    expect(seen.calls.map((c) => c.tool)).toEqual(["lookup", "lookup"]);
    const decided = await request(h.app)
      .post(`/api/waits/${wait.id}/decision`)
      .set("Cookie", h.cookie)
      .send({ decision: "approve" });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);

    const detail = await agentRunEnd(id);
    expect(detail.agent_run).toMatchObject({
      status: "success",
      reason: "answered",
      answer: "Teal is a colour; Ada knows.",
    });
    expect(detail.steps.map((s) => [s.kind, s.name])).toEqual([
      ["tool", "kb__tools/list"],
      ["model", "gpt-test"],
      ["tool", "kb__lookup"],
      ["model", "gpt-test"],
      ["approval", "kb__send"],
      ["tool", "kb__send"],
      ["model", "gpt-test"],
    ]);
    expect(detail.steps.every((s) => s.error === null)).toBe(true);
    expect(detail.steps[0]!.output).toMatchObject({ tools: ["kb__lookup", "kb__send"] });

    // The 500 was retried by Temporal with the same idempotency key; send ran once, after approval.
    expect(seen.calls.map((c) => c.tool)).toEqual(["lookup", "lookup", "send"]);
    expect(seen.calls[0]!.idempotencyKey).toBe(seen.calls[1]!.idempotencyKey);
    expect(seen.calls[0]!.idempotencyKey).toMatch(new RegExp(`^${id}:\\d+$`));
    expect(seen.calls[2]!.args).toEqual({ to: "ada", text: "teal" });
    expect(seen.unauthorized).toBe(0);

    // The model saw both tools with their schemas next to its own, and got both results.
    expect(sentToolNames(0)).toEqual(["log_write", "kb__lookup", "kb__send"]);
    const lookupSpec = (
      provider.calls[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>
    )[1]!;
    expect(lookupSpec.function.parameters).toMatchObject({ type: "object", properties: { term: { type: "string" } } });
    expect(sentMessages(1).find((m) => m.role === "tool")!.content).toBe("teal: a colour");
    const sendResult = JSON.parse(
      String(
        sentMessages(2)
          .filter((m) => m.role === "tool")
          .at(-1)!.content,
      ),
    );
    expect(sendResult).toEqual({ content: "sent to ada", structured_content: { sent: true } });

    // The secret is in no step row, log, wait, answer, provider request or Temporal history.
    const rows = JSON.stringify([
      await testPrisma().agentStep.findMany({ where: { agentRunId: id } }),
      await testPrisma().agentLog.findMany({ where: { agentRunId: id } }),
      await testPrisma().wait.findMany({ where: { agentRunId: id } }),
    ]);
    expect(rows).not.toContain(SECRET);
    expect(JSON.stringify(detail)).not.toContain(SECRET);
    expect(JSON.stringify(provider.calls)).not.toContain(SECRET);
    // Opened with the key (the payload codec), as the Temporal UI shows it to members: the id, not the value.
    const [codec] = createDataConverter({
      SVC_ENCRYPTION_KEY: parseKeyRing(TEST_ENCRYPTION_KEY) as RingKey[],
    }).payloadCodecs;
    const history = searchableText(await openedHistory(await exportedHistory(h.deps.temporal, id), codec!));
    expect(history).toContain(credentialId);
    expect(history).toContain("the index is rebuilding");
    expect(history).not.toContain(SECRET);
  });

  it("offers only the allowlisted tools and answers a server's tool error to the model", async () => {
    seen.calls.length = 0;
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "kb__send", arguments: JSON.stringify({ to: "ada" }) }] }),
      openAiAnswer({ text: "Could not send." }),
    );
    const started = await runAgent({
      instructions: "Send",
      mcp_servers: [{ url: mcpServer.endpoint, label: "kb", credential_id: credentialId, tools: ["send"] }],
      wait: 30_000,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(sentToolNames(0)).toEqual(["log_write", "kb__send"]);
    // The server refused arguments that miss `text`: the model reads why, the run goes on.
    const result = JSON.parse(String(sentMessages(1).find((m) => m.role === "tool")!.content));
    expect(result.error).toMatch(/kb__send failed: .*text/);
    const detail = await getAgentRun(started.body.agent_run_id);
    expect(detail.agent_run).toMatchObject({ status: "success", answer: "Could not send." });
  });

  it("asks a token for write to name an MCP server's credential (where a credential goes), run alone otherwise", async () => {
    const token = async (scopes: string[]) => {
      const res = await request(h.app)
        .post("/api/workspace/tokens")
        .set("Cookie", h.cookie)
        .send({ name: "t", scopes });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.token as string;
    };
    const asToken = (bearer: string, server: object) =>
      request(h.app)
        .post("/api/agent/run")
        .set("Authorization", `Bearer ${bearer}`)
        .send({ agent: "mcp-test", provider: "openai", model: "gpt-test", instructions: "hi", mcp_servers: [server] });
    const runOnly = await token(["run"]);
    const before = await testPrisma().agentRun.count({ where: { workspaceId: h.workspaceId } });
    const refused = await asToken(runOnly, { url: mcpServer.endpoint, label: "kb", credential_id: credentialId });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "insufficient_scope", required_scope: "write" });
    expect(await testPrisma().agentRun.count({ where: { workspaceId: h.workspaceId } })).toBe(before);
    provider.script("openai", openAiAnswer({ text: "ok" }), openAiAnswer({ text: "ok" }));
    const bare = await asToken(runOnly, { url: mcpServer.endpoint, label: "kb" });
    expect(bare.status, JSON.stringify(bare.body)).toBe(202);
    const writer = await asToken(await token(["run", "write"]), {
      url: mcpServer.endpoint,
      label: "kb",
      credential_id: credentialId,
    });
    expect(writer.status, JSON.stringify(writer.body)).toBe(202);
    await agentRunEnd(bare.body.agent_run_id);
    await agentRunEnd(writer.body.agent_run_id);
  });

  it("refuses an MCP server on a private address through the egress guard, and tells the model", async () => {
    provider.script("openai", openAiAnswer({ text: "No tools today." }));
    const started = await runAgent({
      instructions: "Use the internal server",
      mcp_servers: [{ url: "http://10.0.0.7:8080/mcp", label: "internal" }],
      wait: 30_000,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const detail = await getAgentRun(started.body.agent_run_id);
    expect(detail.agent_run).toMatchObject({ status: "success", answer: "No tools today." });
    expect(detail.steps[0]).toMatchObject({ kind: "tool", name: "internal__tools/list" });
    expect(detail.steps[0]!.error).toMatch(/MCP server internal: refused by the egress guard/);
    expect(sentToolNames(0)).toEqual(["log_write"]);
    expect(String(sentMessages(0).find((m) => m.role === "user")!.content)).toMatch(
      /refused by the egress guard.*not available/,
    );
  });

  it("answers 400 for an MCP server with credentials in its URL, too many servers, or a credential of another kind", async () => {
    const bad = [
      { mcp_servers: [{ url: "http://user:pw@127.0.0.1/mcp" }] },
      { mcp_servers: Array.from({ length: 6 }, (_, i) => ({ url: `http://127.0.0.1/${i}`, label: `s${i}` })) },
      { mcp_servers: [{ url: "ftp://127.0.0.1/mcp" }] },
      { mcp_servers: [{ url: "http://127.0.0.1/mcp", tools: ["a"], approval_tools: ["b"] }] },
      { mcp_servers: [{ url: "http://127.0.0.1/a" }, { url: "http://127.0.0.1/b", label: "mcp1" }] },
    ];
    for (const body of bad) {
      const res = await runAgent({ instructions: "x", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("validation_failed");
    }
    const ai = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", h.cookie)
      .send({ name: "AI", type: "ai_provider", data: { provider: "openai", api_key: "sk-another-key-123" } });
    expect(ai.status, JSON.stringify(ai.body)).toBe(201);
    const wrong = await runAgent({
      instructions: "x",
      mcp_servers: [{ url: mcpServer.endpoint, credential_id: ai.body.id }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/mcp_servers\[0\]\.credential_id/);
  });
});
