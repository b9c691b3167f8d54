// An agent's MCP tool call survives its worker being killed with SIGKILL in the middle of it: the
// call's activity is tried again by another worker with the same Idempotency-Key, so a server that
// honours the key applies the call's effect once; the run ends with one step for the call, and the
// model reads its result once.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { afterAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { closeDeps } from "../api/deps.js";
import { TEST_ENCRYPTION_KEY } from "./helpers/context.js";
import { appOn, waitForPoller } from "./helpers/durable-app.js";
import { openAiAnswer, startFakeProvider } from "./helpers/fake-llm-provider.js";
import { startMcpTestServer } from "./helpers/mcp-test-server.js";
import { cleanEnv, spawnEntry, type Spawned } from "./helpers/processes.js";

describe("an agent's MCP tool call and a killed worker", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  });

  it("applies the call once and records it once when the worker is SIGKILLed during the call", async () => {
    const provider = await startFakeProvider();
    cleanups.push(() => provider.close());
    /** The effect of each Idempotency-Key, applied once: the server honours the key. */
    const effects = new Map<string, string>();
    let arrived: () => void = () => undefined;
    const firstArrival = new Promise<void>((resolve) => (arrived = resolve));
    const mcp = await startMcpTestServer({
      tools(server) {
        server.registerTool(
          "book",
          { description: "Books a room.", inputSchema: { room: z.string() } },
          ({ room }) => ({
            content: [{ type: "text", text: `booked ${room}` }],
          }),
        );
      },
    });
    cleanups.push(() => mcp.close());
    mcp.intercept = (call, req, res) => {
      const key = call.idempotencyKey;
      if (!key || effects.has(key)) return false; // a repeated key: answered as the first time (by the SDK)
      effects.set(key, `booked ${(call.args as { room: string }).room}`);
      arrived();
      // The answer is held until the caller is gone: its worker is killed before it reads it.
      req.socket.once("close", () => res.destroy());
      return true;
    };

    const taskQueue = `agent-mcp-durable-${randomUUID()}`;
    const aiEnv = {
      OPENAI_API_KEY: "sk-test-openai-key",
      OPENAI_BASE_URL: `${provider.url}/v1`,
      EGRESS_ALLOWLIST: "127.0.0.1",
    };
    const workerEnv = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: "error",
      WEBHOOK_DISPATCHER: "false",
      ...aiEnv,
    });
    const spawnWorker = () => {
      const worker = spawnEntry("worker/main.ts", [], workerEnv);
      cleanups.push(() => {
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      });
      return worker;
    };
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue, ...aiEnv });
    cleanups.push(() => closeDeps(api.deps));

    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "hotel__book", arguments: JSON.stringify({ room: "12" }) }] }),
      openAiAnswer({ text: "Room 12 is booked." }),
    );
    const first: Spawned = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const started = await request(api.app)
      .post("/api/agent/run")
      .set("Cookie", api.cookie)
      .send({
        agent: "concierge",
        instructions: "Book room 12",
        provider: "openai",
        model: "gpt-test",
        tools: ["log.write"],
        mcp_servers: [{ url: mcp.endpoint, label: "hotel" }],
      });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;

    await firstArrival;
    first.child.kill("SIGKILL");
    await first.exited;
    spawnWorker();

    const detail = async () =>
      (await request(api.app).get(`/api/agent/runs/${id}`).set("Cookie", api.cookie)).body as {
        agent_run: { status: string; answer: string | null };
        steps: Array<{ kind: string; name: string; output: unknown; error: string | null }>;
      };
    // The lost attempt is noticed when its heartbeats stop (15 s), then tried again.
    await expect
      .poll(async () => (await detail()).agent_run.status, { timeout: 90_000, interval: 500 })
      .toBe("success");
    const { agent_run, steps } = await detail();
    expect(agent_run.answer).toBe("Room 12 is booked.");

    // Both attempts carried the same key; the effect was applied once.
    expect(mcp.calls.map((call) => call.tool)).toEqual(["book", "book"]);
    expect(new Set(mcp.calls.map((call) => call.idempotencyKey)).size).toBe(1);
    expect([...effects.values()]).toEqual(["booked 12"]);
    // One step for the call, with its result; the model read it once.
    const calls = steps.filter((step) => step.name === "hotel__book");
    expect(calls).toEqual([expect.objectContaining({ kind: "tool", output: { content: "booked 12" }, error: null })]);
    expect(provider.calls).toHaveLength(2);
    const toolMessages = (provider.calls[1]!.body.messages as Array<{ role: string; content: unknown }>).filter(
      (message) => message.role === "tool",
    );
    expect(toolMessages).toEqual([expect.objectContaining({ content: expect.stringContaining("booked 12") })]);
  }, 150_000);
});
