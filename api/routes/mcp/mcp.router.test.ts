// Flows served as MCP tools, through the MCP SDK's own client over Streamable HTTP against the
// API listening on loopback: tools/list shows the workspace's active tool flows, tools/call runs
// one and answers its output, a slow one answers its run id and svc_run_status its end. And the
// attacks: another workspace's token, a token without the run scope, a session cookie without a
// token, arguments that break the schema or are huge, batches, and a flow that calls itself
// through the endpoint (bounded by the caller's running MCP runs).
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { closeDeps, createDeps, type AppDeps } from "../../deps.js";
import { createLogger } from "../../../lib/logger.js";
import { testConfig, testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { startTestWorker, testRegistry } from "../../../test/helpers/runs.js";

const RUNNING_LIMIT = 3;
const settings = {
  EGRESS_ALLOWLIST: "127.0.0.1",
  MCP_MAX_INPUT_BYTES: "4096",
  MCP_MAX_RUNNING_PER_CALLER: String(RUNNING_LIMIT),
};

/** A flow served as the tool `name`, then `nodes` after its trigger. */
const toolFlow = (
  name: string,
  nodes: Array<{ id: string; type: string; config?: object }>,
  tool: Record<string, unknown> = {},
) => ({
  nodes: [{ id: "tool", type: "mcp_tool", config: { name, ...tool } }, ...nodes],
  edges: nodes.map((node, i) => ({ from: i === 0 ? "tool" : nodes[i - 1]!.id, to: node.id })),
});

const addSchema = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
};

describe("flows served as MCP tools", () => {
  let deps: AppDeps;
  let server: Server;
  let base: string;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const taskQueue = `mcp-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: settings });
    const config = testConfig({ ...settings, TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "mcp-test"), { nodes: testRegistry() });
    server = createApp(deps).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    owner = await createTestUser("mcp-owner");
    cookie = (await login(createApp(deps), owner.email)).cookie;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await worker?.stop();
    if (deps) await closeDeps(deps);
  });

  async function createFlow(name: string, definition: object, as = cookie) {
    const res = await request(server).post("/api/flows").set("Cookie", as).send({ name, definition });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  async function createToken(scopes: string[], as = cookie) {
    const res = await request(server).post("/api/workspace/tokens").set("Cookie", as).send({ name: "mcp", scopes });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; token: string };
  }

  async function connect(token: string) {
    const client = new Client({ name: "svc-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  let runner: { id: string; token: string };
  let addFlow: string;

  it("lists the workspace's active tool flows with their schemas, and calls one for the run's output", async () => {
    addFlow = await createFlow(
      "Adder",
      toolFlow("add_numbers", [{ id: "sum", type: "transform", config: { expression: "{ 'sum': a + b }" } }], {
        description: "Adds two numbers",
        input_schema: addSchema,
      }),
    );
    const inactive = await createFlow("Off", toolFlow("switched_off", [{ id: "echo", type: "test_echo" }]));
    const flow = await request(server).get(`/api/flows/${inactive}`).set("Cookie", cookie);
    await request(server)
      .put(`/api/flows/${inactive}`)
      .set("Cookie", cookie)
      .send({ version: flow.body.version, status: "inactive" });
    // A second flow naming the same tool: the older one is served.
    await createFlow("Adder copy", toolFlow("add_numbers", [{ id: "echo", type: "test_echo" }]));

    runner = await createToken(["read", "run"]);
    const client = await connect(runner.token);
    expect(client.getServerVersion()).toMatchObject({ name: "svc" });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("add_numbers");
    expect(names).toContain("svc_run_status");
    expect(names).not.toContain("switched_off");
    expect(names.filter((n) => n === "add_numbers")).toHaveLength(1);
    expect(tools.find((t) => t.name === "add_numbers")).toMatchObject({
      title: "Adder",
      description: "Adds two numbers",
      inputSchema: addSchema,
    });

    const result = await client.callTool({ name: "add_numbers", arguments: { a: 2, b: 40 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ sum: 42 });
    const run = await testPrisma().run.findFirstOrThrow({ where: { flowId: addFlow }, orderBy: { startedAt: "desc" } });
    expect([run.trigger, run.createdBy, run.status]).toEqual(["mcp", runner.id, "success"]);
  });

  it("answers a slow run's id within the tool's timeout, and svc_run_status its output once it has ended", async () => {
    await createFlow(
      "Slow",
      toolFlow("slow_tool", [{ id: "nap", type: "test_sleep", config: { ms: 1500 } }], { timeout_ms: 200 }),
    );
    const client = await connect(runner.token);
    const started = await client.callTool({ name: "slow_tool", arguments: {} });
    expect(started.isError).toBeFalsy();
    const { run_id: runId, status } = started.structuredContent as { run_id: string; status: string };
    expect([runId, status]).toEqual([expect.stringMatching(/^run_/), "running"]);
    expect((started.content as Array<{ text: string }>)[0]!.text).toContain("svc_run_status");

    const deadline = Date.now() + 30_000;
    let ended: Awaited<ReturnType<Client["callTool"]>>;
    do {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
      ended = await client.callTool({ name: "svc_run_status", arguments: { run_id: runId } });
    } while ((ended.structuredContent as { status?: string } | undefined)?.status === "running");
    expect(ended.structuredContent).toEqual({ slept: 1500 });

    // A run this caller did not start through MCP is not its to read.
    const other = await request(server).post(`/api/workflows/${addFlow}/run`).set("Cookie", cookie).send({});
    const refused = await client.callTool({ name: "svc_run_status", arguments: { run_id: other.body.run_id } });
    expect(refused.isError).toBe(true);
  });

  it("answers a failed run as an error result with the run's error, and a flow made inactive as an unknown tool", async () => {
    const failing = await createFlow(
      "Breaks",
      toolFlow("breaks", [{ id: "boom", type: "test_fail", config: { failures: 5, fatal: true } }]),
    );
    const client = await connect(runner.token);
    const result = await client.callTool({ name: "breaks", arguments: {} });
    expect(result.isError).toBe(true);
    const { run_id: runId, status } = result.structuredContent as { run_id: string; status: string };
    expect(status).toBe("failed");
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/failed: .*planned failure 1 of 5/);
    const run = await testPrisma().run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.flowId, run.trigger, run.status]).toEqual([failing, "mcp", "failed"]);

    const flow = await request(server).get(`/api/flows/${failing}`).set("Cookie", cookie);
    const off = await request(server)
      .put(`/api/flows/${failing}`)
      .set("Cookie", cookie)
      .send({ version: flow.body.version, status: "inactive" });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("breaks");
    await expect(client.callTool({ name: "breaks", arguments: {} })).rejects.toThrow(/Unknown tool: breaks/);
  });

  it("refuses arguments that break the schema or are huge, unknown tools, batches and other methods", async () => {
    const client = await connect(runner.token);
    const before = await testPrisma().run.count({ where: { flowId: addFlow } });
    const wrong = await client.callTool({ name: "add_numbers", arguments: { a: "two", b: 3 } });
    expect(wrong.isError).toBe(true);
    expect((wrong.content as Array<{ text: string }>)[0]!.text).toMatch(/input schema: \/a must be number/);
    const huge = await client.callTool({ name: "add_numbers", arguments: { a: 1, b: 2, pad: "x".repeat(5000) } });
    expect(huge.isError).toBe(true);
    expect((huge.content as Array<{ text: string }>)[0]!.text).toMatch(/over 4096 bytes/);
    expect(await testPrisma().run.count({ where: { flowId: addFlow } })).toBe(before);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);

    const post = (body: unknown) =>
      request(server)
        .post("/api/mcp")
        .set("Authorization", `Bearer ${runner.token}`)
        .set("Accept", "application/json, text/event-stream")
        .send(body as object);
    const batch = await post([
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ]);
    expect(batch.status).toBe(400);
    const tooLarge = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: "x".repeat(1_100_000) },
    });
    expect(tooLarge.status).toBe(413);
    const get = await request(server).get("/api/mcp").set("Authorization", `Bearer ${runner.token}`);
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);

    // Malformed messages answer a client error or a JSON-RPC error, never a 5xx, and start nothing.
    let nested: unknown = 1;
    for (let i = 0; i < 500; i++) nested = [nested];
    const malformed: unknown[] = [
      { jsonrpc: "1.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add_numbers", arguments: [1, 2] } },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add_numbers", arguments: { a: nested, b: 1 } } },
      { jsonrpc: "2.0", id: 1, method: "tools/call" },
      { jsonrpc: "2.0", id: 1, method: "no/such/method" },
      { jsonrpc: "2.0", id: { x: 1 }, method: "tools/list" },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
      "tools/list",
    ];
    for (const body of malformed) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBeLessThan(500);
      if (res.status === 200) expect(res.body.error, JSON.stringify(body).slice(0, 200)).toBeDefined();
    }
    expect(await testPrisma().run.count({ where: { flowId: addFlow } })).toBe(before);
  });

  it("takes API tokens only: read lists, run calls; a session cookie alone is refused", async () => {
    const reader = await createToken(["read"]);
    const readerClient = await connect(reader.token);
    expect((await readerClient.listTools()).tools.map((t) => t.name)).toContain("add_numbers");
    const before = await testPrisma().run.count({ where: { flowId: addFlow } });
    await expect(readerClient.callTool({ name: "add_numbers", arguments: { a: 1, b: 2 } })).rejects.toThrow(
      /403|insufficient_scope/,
    );
    expect(await testPrisma().run.count({ where: { flowId: addFlow } })).toBe(before);
    const runOnly = await createToken(["run"]);
    await expect(connect(runOnly.token)).rejects.toThrow(/403|insufficient_scope/);

    const mcpPost = (body: object) =>
      request(server).post("/api/mcp").set("Accept", "application/json, text/event-stream").send(body);
    const noToken = await mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(noToken.status).toBe(401);
    const sessionOnly = await mcpPost({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "add_numbers", arguments: { a: 1, b: 2 } },
    }).set("Cookie", cookie);
    expect([sessionOnly.status, sessionOnly.body.code]).toEqual([401, "token_required"]);
    expect(sessionOnly.headers["www-authenticate"]).toBe("Bearer");
    expect(await testPrisma().run.count({ where: { flowId: addFlow } })).toBe(before);
  });

  it("refuses a browser page of another origin, a rebound name's too (MCP's DNS rebinding rule), and takes the API's own", async () => {
    const initialize = (origin: string, host?: string) => {
      const req = request(server)
        .post("/api/mcp")
        .set("Accept", "application/json, text/event-stream")
        .set("Authorization", `Bearer ${runner.token}`)
        .set("Origin", origin);
      if (host) req.set("Host", host);
      return req.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } },
      });
    };
    const foreign = await initialize("http://evil.example.com");
    expect([foreign.status, foreign.body.code]).toEqual([403, "origin_refused"]);
    // A rebound name: the page's origin and the Host header agree, and neither is the API's.
    const rebound = await initialize("http://evil.example.com", "evil.example.com");
    expect([rebound.status, rebound.body.code]).toEqual([403, "origin_refused"]);
    const own = await initialize(`http://localhost:${deps.config.PORT}`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.result.serverInfo).toMatchObject({ name: "svc" });
  });

  it("serves a token only its own workspace's tools", async () => {
    const stranger = await createTestUser("mcp-stranger");
    const strangerCookie = (await login(createApp(deps), stranger.email)).cookie;
    await createFlow("Theirs", toolFlow("their_tool", [{ id: "echo", type: "test_echo" }]), strangerCookie);
    const foreign = await connect((await createToken(["read", "run"], strangerCookie)).token);
    const names = (await foreign.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["their_tool", "svc_run_status"]);
    await expect(foreign.callTool({ name: "add_numbers", arguments: { a: 1, b: 2 } })).rejects.toThrow(/Unknown tool/);
    expect(await testPrisma().run.count({ where: { flowId: addFlow, createdBy: { not: runner.id } } })).toBe(1);
  });

  it("answers the MCP inspector's CLI (a client no one here wrote): tools/list and tools/call", async () => {
    // The package's own bin (npx @modelcontextprotocol/inspector-cli --cli …), as a child process,
    // run from its build folder: it finds its package.json by a path it tests against the working
    // directory but imports from its own (it fails when run from elsewhere, as from our root).
    const cli = resolve("node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");
    const inspect = async (...args: string[]) => {
      const header = `Authorization: Bearer ${runner.token}`;
      const argv = [cli, "--cli", `${base}/api/mcp`, "--transport", "http", "--header", header, ...args];
      const outcome = await promisify(execFile)(process.execPath, argv, {
        cwd: dirname(cli),
        timeout: 30_000,
        maxBuffer: 1_000_000,
      }).catch((error: Error & { stdout?: string; stderr?: string }) => {
        // Its failure, without the token it was given.
        const said = `${error.stderr ?? ""}\n${error.stdout ?? ""}`.replaceAll(runner.token, "svc_pat_…");
        throw new Error(`The inspector CLI failed (${args.join(" ")}): ${said}`);
      });
      return JSON.parse(outcome.stdout) as Record<string, unknown>;
    };
    const listed = (await inspect("--method", "tools/list")) as {
      tools: Array<{ name: string; inputSchema: unknown }>;
    };
    expect(listed.tools.map((t) => t.name)).toEqual(["add_numbers", "slow_tool", "svc_run_status"]);
    expect(listed.tools[0]!.inputSchema).toEqual(addSchema);
    const called = await inspect("--method", "tools/call", "--tool-name", "add_numbers", "--tool-arg", "a=20", "b=22");
    expect(called).toMatchObject({ structuredContent: { sum: 42 } });
    expect(called.isError).toBeFalsy();
  }, 60_000);

  it("bounds a flow that calls itself through the endpoint by the caller's running MCP runs", async () => {
    const caller = await createToken(["read", "run"]);
    const credential = await request(server)
      .post("/api/credentials")
      .set("Cookie", cookie)
      .send({ name: `mcp self ${randomUUID()}`, type: "bearer", data: { token: caller.token } });
    expect(credential.status, JSON.stringify(credential.body)).toBe(201);
    const selfCall = {
      id: "again",
      type: "http_request",
      config: {
        method: "POST",
        url: `${base}/api/mcp`,
        credential_id: credential.body.id,
        headers: { Accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "recurse", arguments: {} } },
        timeout_ms: 60_000,
      },
    };
    const recurse = await createFlow("Recurse", toolFlow("recurse", [selfCall], { timeout_ms: 60_000 }));
    const client = await connect(caller.token);
    const result = await client.callTool({ name: "recurse", arguments: {} }, undefined, { timeout: 90_000 });
    expect(result.isError).toBeFalsy();
    // Each level's call waited for the next; the one past the limit was refused and the rest unwound.
    const runs = await testPrisma().run.findMany({ where: { flowId: recurse }, select: { status: true } });
    expect(runs).toHaveLength(RUNNING_LIMIT);
    expect(runs.every((r) => r.status === "success")).toBe(true);
    expect(JSON.stringify(result.structuredContent)).toContain("Too many runs started through MCP");
  }, 120_000);
});
