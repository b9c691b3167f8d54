// An agent's MCP tool calls as activities (Temporal's mock activity context, a real database and
// egress guard) against a loopback server built with the SDK's server classes: a call repeated
// after its result was recorded does not reach the server again; a server that is down is retried
// and then answered to the model; a malformed answer is not retried; an error that echoes the
// credential is scrubbed; what is offered from tools/list is bounded; and an OAuth credential's
// token refused with a 401 is renewed once.
import { randomBytes } from "node:crypto";
import { ApplicationFailure } from "@temporalio/activity";
import { MockActivityEnvironment } from "@temporalio/testing";
import { DefaultLogger } from "@temporalio/worker";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { recordAgentRunStart } from "../../../core/agents/agent-records.js";
import { resolveAgentSettings } from "../../../core/agents/agent-settings.js";
import type { McpToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import {
  MAX_MCP_SCHEMA_BYTES,
  MAX_MCP_TOOLS,
  type McpListResult,
  type McpServer,
} from "../../../core/contracts/mcp-servers.js";
import { createApiKeyStore } from "../../../core/credentials/ai-keys.js";
import { createCredentialsService } from "../../../core/credentials/credentials.service.js";
import { createNodeCredentials } from "../../../core/credentials/node-credentials.js";
import { systemClock } from "../../../lib/clock.js";
import { createEgressGuard } from "../../../lib/egress/guarded-fetch.js";
import { newId } from "../../../lib/ids.js";
import { testConfig, testPrisma, testSeal } from "../../../test/helpers/context.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { startLoopbackServer, type LoopbackServer } from "../../../test/helpers/loopback-server.js";
import {
  startMcpSseTestServer,
  startMcpTestServer,
  type McpTestServer,
} from "../../../test/helpers/mcp-test-server.js";
import { agentListMcpTools, agentMcpToolCall, MCP_ATTEMPTS, offersOf } from "./mcp-tools.js";

const SECRET = "mcp-activity-secret-0123456789";
const server = await startMcpTestServer({
  token: SECRET,
  tools(mcp) {
    mcp.registerTool(
      "stamp",
      { description: "Stamps a document.", inputSchema: { doc: z.string() } },
      async ({ doc }) => ({ content: [{ type: "text", text: `stamped ${doc}` }] }),
    );
  },
});
const egress = createEgressGuard({
  allowlist: "127.0.0.1",
  timeoutMs: 10_000,
  maxResponseBytes: 1_000_000,
  maxRedirects: 0,
});
afterAll(async () => {
  server.close();
  await egress.close();
});
beforeEach(() => {
  server.calls.length = 0;
  server.intercept = undefined;
});

const mockContext = (attempt: number) =>
  new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger("ERROR", () => undefined) });

/** The activity at attempt `attempt`, as Temporal would run it. */
const callAt = (attempt: number, input: McpToolCallInput): Promise<ToolCallResult> =>
  mockContext(attempt).run(agentMcpToolCall, deps, input);

const prisma = testPrisma();
const config = testConfig();
const credentials = createCredentialsService({ prisma, clock: systemClock, config });
const nodeCredentials = createNodeCredentials({
  credentials,
  apiKeys: createApiKeyStore({ prisma, clock: systemClock, config, credentials }),
  fetch: egress.fetch,
  clock: systemClock,
});
const deps = {
  prisma,
  clock: systemClock,
  seal: testSeal,
  egress,
  credentialsFor: nodeCredentials.forWorkspace,
};

let workspaceId: string;
let userId: string;
let kb: McpServer;
beforeAll(async () => {
  const user = await createTestUser("mcp-tools");
  workspaceId = user.workspace.workspaceId;
  userId = user.user.id;
  const credential = await credentials.create(workspaceId, user.user.id, {
    name: "MCP",
    type: "bearer",
    data: { token: SECRET },
  });
  kb = { label: "kb", url: server.endpoint, credentialId: credential.id };
});

/** A fresh agent run (its steps need one) and a call of `stamp` as its step 1. */
async function stampCall(args: object = { doc: "a" }): Promise<McpToolCallInput> {
  const agentRunId = newId("agr");
  const settings = resolveAgentSettings({ agent: "mcp-tools", instructions: "hi" }, { provider: "openai", model: "m" });
  await recordAgentRunStart({ prisma, clock: systemClock, seal: testSeal }, { id: agentRunId, workspaceId, settings });
  return {
    agentRunId,
    workspaceId,
    agentId: "mcp-tools",
    number: 1,
    call: { id: "call_1", name: "kb__stamp", arguments: JSON.stringify(args) },
    allowed: [],
    server: kb,
    tool: "stamp",
  };
}

describe("agentMcpToolCall", () => {
  it("calls the tool once: an attempt after the result was recorded answers it again", async () => {
    const input = await stampCall();
    const first = await callAt(1, input);
    // The worker was lost before Temporal heard of the result: the next attempt runs the same input.
    const again = await callAt(2, input);
    expect(first).toEqual({ content: "stamped a", isError: false });
    expect(again).toEqual(first);
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]).toMatchObject({ tool: "stamp", idempotencyKey: `${input.agentRunId}:1` });
    const step = await prisma.agentStep.findUniqueOrThrow({
      where: { agentRunId_number: { agentRunId: input.agentRunId, number: 1 } },
    });
    // Sealed at rest.
    expect(JSON.stringify(step.output)).not.toContain("stamped");
    expect(testSeal.open(step.output)).toEqual({ content: "stamped a" });
  });

  it("retries a server that is down, then tells the model", async () => {
    const down = await stampCall();
    server.intercept = (_call, req) => {
      req.socket.destroy();
      return true;
    };
    const thrown = await callAt(1, down).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    expect((thrown as ApplicationFailure).nonRetryable).toBe(false);
    expect((thrown as Error).message).toMatch(/MCP server kb: unreachable/);
    // Nothing recorded yet: the retry calls again.
    expect(await prisma.agentStep.count({ where: { agentRunId: down.agentRunId } })).toBe(0);

    const last = await callAt(MCP_ATTEMPTS, down);
    expect(last.isError).toBe(true);
    expect(JSON.parse(last.content).error).toMatch(/^kb__stamp failed: MCP server kb: unreachable/);
    expect(server.calls).toHaveLength(2);
  });

  it("answers a malformed answer to the model at once, without a retry", async () => {
    const input = await stampCall();
    server.intercept = (_call, _req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc": "2.0", "id": ');
      return true;
    };
    const result = await callAt(1, input);
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content).error).toMatch(/MCP server kb: malformed answer/);
  });

  it("scrubs the credential from an error that echoes it", async () => {
    const input = await stampCall();
    server.intercept = (_call, req, res) => {
      res.writeHead(400, { "content-type": "text/plain" }).end(`bad request with ${req.headers.authorization}`);
      return true;
    };
    const result = await callAt(1, input);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("HTTP 400");
    expect(result.content).toContain("[redacted]");
    expect(result.content).not.toContain(SECRET);
    const step = await prisma.agentStep.findUniqueOrThrow({
      where: { agentRunId_number: { agentRunId: input.agentRunId, number: 1 } },
    });
    expect(testSeal.openText(step.error!)).not.toContain(SECRET);
  });

  it("answers arguments that are not a JSON object to the model without calling the server", async () => {
    const input = await stampCall();
    const result = await callAt(1, { ...input, call: { ...input.call, arguments: "[1]" } });
    expect(JSON.parse(result.content).error).toMatch(/not a JSON object/);
    expect(server.calls).toHaveLength(0);
  });

  it("refuses a server on a private address, not retried", async () => {
    const input = await stampCall();
    const result = await callAt(1, {
      ...input,
      server: { label: "lan", url: "http://192.168.1.20/mcp" },
    });
    expect(JSON.parse(result.content).error).toMatch(/MCP server lan: refused by the egress guard/);
  });
});

describe("agentListMcpTools", () => {
  it("offers the server's tools with their schemas and records the listing", async () => {
    const { agentRunId } = await stampCall();
    const listed: McpListResult = await mockContext(1).run(agentListMcpTools, deps, {
      agentRunId,
      workspaceId,
      number: 2,
      server: { ...kb, approvalTools: ["stamp"] },
      serverIndex: 0,
      offeredBefore: 0,
    });
    expect(listed.note).toBeUndefined();
    expect(listed.offers).toEqual([
      {
        wireName: "kb__stamp",
        server: 0,
        tool: "stamp",
        description: "Stamps a document.",
        inputSchema: expect.objectContaining({ type: "object", properties: { doc: { type: "string" } } }),
        approval: true,
      },
    ]);
  });

  it("bounds what it offers: the allowlist, the schema size, the number of tools", () => {
    const tool = (name: string, schemaBytes = 10) => ({
      name,
      inputSchema: { type: "object" as const, description: "x".repeat(schemaBytes) },
    });
    const server = { label: "big", url: "http://127.0.0.1/mcp", tools: ["a", "b", "huge", "gone"] };
    const listed = offersOf([tool("a"), tool("b"), tool("c"), tool("huge", MAX_MCP_SCHEMA_BYTES)], {
      server,
      serverIndex: 1,
      offeredBefore: MAX_MCP_TOOLS - 1,
    });
    expect(listed.offers.map((offer) => offer.wireName)).toEqual(["big__a"]);
    expect(listed.note).toContain("huge (input schema over");
    expect(listed.note).toContain(`b (over ${MAX_MCP_TOOLS} MCP tools in all)`);
    expect(listed.note).toContain("not listed by the server: gone");
    expect(listed.note).not.toContain("c (");
  });
});

describe("an MCP server's OAuth client credentials", () => {
  const client = { id: "mcp-client", secret: "mcp-oauth-client-secret-97531" };
  const issued: string[] = [];
  /** Tokens the server takes; the first one issued is refused (revoked before it was used). */
  const live = new Set<string>();
  let acceptNone = false;
  let tokenEndpoint: LoopbackServer;
  let oauthServer: McpTestServer;
  let oauth: McpServer;

  beforeAll(async () => {
    tokenEndpoint = await startLoopbackServer((req, res) => {
      const token = `mcp-at-${issued.length + 1}-${randomBytes(6).toString("hex")}`;
      issued.push(token);
      if (issued.length > 1) live.add(token);
      const basic = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`;
      if (req.headers.authorization !== basic) return void res.writeHead(401).end('{"error":"invalid_client"}');
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 }));
    });
    oauthServer = await startMcpTestServer({
      token: (token) => !acceptNone && live.has(token),
      tools(mcp) {
        mcp.registerTool("stamp", { inputSchema: { doc: z.string() } }, async ({ doc }) => ({
          content: [{ type: "text", text: `oauth stamped ${doc}` }],
        }));
      },
    });
    const credential = await credentials.create(workspaceId, userId, {
      name: "MCP OAuth",
      type: "oauth2_client_credentials",
      data: {
        token_url: `${tokenEndpoint.url}/token`,
        client_id: client.id,
        client_secret: client.secret,
        allowed_hosts: ["127.0.0.1:*"],
      },
    });
    oauth = { label: "crm", url: oauthServer.endpoint, credentialId: credential.id };
  });
  afterAll(() => {
    tokenEndpoint.close();
    oauthServer.close();
  });

  it("fetches a new token after a 401 and tries once more", async () => {
    const input = {
      ...(await stampCall({ doc: "o" })),
      server: oauth,
      call: { id: "c", name: "crm__stamp", arguments: '{"doc":"o"}' },
    };
    const result = await callAt(1, input);
    expect(result).toEqual({ content: "oauth stamped o", isError: false });
    expect(issued).toHaveLength(2);
    expect(oauthServer.unauthorized).toBe(1);
    expect(oauthServer.calls.map((call) => call.tool)).toEqual(["stamp"]);
  });

  it("renews once only: a second 401 is a clear error to the model, without the secrets", async () => {
    acceptNone = true;
    const before = { issued: issued.length, unauthorized: oauthServer.unauthorized };
    const input = {
      ...(await stampCall({ doc: "p" })),
      server: oauth,
      call: { id: "c", name: "crm__stamp", arguments: '{"doc":"p"}' },
    };
    const result = await callAt(1, input);
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content).error).toBe(
      "crm__stamp failed: MCP server crm: refused the credential (HTTP 401), also with a newly fetched OAuth token",
    );
    // The cached token, then one new one: one renewal, two requests refused, no call reached the tool.
    expect(issued.length - before.issued).toBe(1);
    expect(oauthServer.unauthorized - before.unauthorized).toBe(2);
    expect(oauthServer.calls).toHaveLength(1);
    for (const secret of [client.secret, ...issued]) expect(result.content).not.toContain(secret);
  });
});

describe("a server of the older HTTP+SSE transport", () => {
  it("lists its tools and calls one over its event stream, with the credential and idempotency key on each request", async () => {
    const sse = await startMcpSseTestServer({
      token: SECRET,
      tools(mcp) {
        mcp.registerTool(
          "stamp",
          { description: "Stamps a document, the old way.", inputSchema: { doc: z.string() } },
          async ({ doc }) => ({ content: [{ type: "text", text: `sse-stamped ${doc}` }] }),
        );
      },
    });
    try {
      const old: McpServer = { ...kb, label: "old", url: sse.endpoint, transport: "sse" };
      const input = {
        ...(await stampCall({ doc: "s" })),
        server: old,
        call: { id: "c", name: "old__stamp", arguments: '{"doc":"s"}' },
      };
      const listed: McpListResult = await mockContext(1).run(agentListMcpTools, deps, {
        agentRunId: input.agentRunId,
        workspaceId,
        number: 2,
        server: old,
        serverIndex: 0,
        offeredBefore: 0,
      });
      expect(listed.offers.map((offer) => [offer.wireName, offer.description])).toEqual([
        ["old__stamp", "Stamps a document, the old way."],
      ]);
      const result = await callAt(1, input);
      expect(result).toEqual({ content: "sse-stamped s", isError: false });
      expect(sse.calls).toEqual([{ tool: "stamp", args: { doc: "s" }, idempotencyKey: `${input.agentRunId}:1` }]);
      // Each activity opened its own stream, and no request went without the credential.
      expect(sse.streams).toBe(2);
      expect(sse.unauthorized).toBe(0);
      // The Streamable HTTP server was not asked.
      expect(server.calls).toHaveLength(0);
    } finally {
      sse.close();
    }
  });

  it("refuses a stream that names another origin for its messages, not retried", async () => {
    const elsewhere = await startLoopbackServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: endpoint\ndata: http://127.0.0.2:9/messages?sessionId=x\n\n`);
    });
    try {
      const input = {
        ...(await stampCall({ doc: "e" })),
        server: { label: "old", url: `${elsewhere.url}/sse`, transport: "sse" as const },
        call: { id: "c", name: "old__stamp", arguments: '{"doc":"e"}' },
      };
      // Told to the model at the first attempt: another attempt would meet the same stream.
      const result = await callAt(1, input);
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content).error).toBe(
        "old__stamp failed: MCP server old: Endpoint origin does not match connection origin: http://127.0.0.2:9",
      );
    } finally {
      elsewhere.close();
    }
  });
});
