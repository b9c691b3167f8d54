// Runs survive their worker being killed and Temporal restarting: they finish with the right
// status, and no node has two successful steps.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import request from "supertest";
import { afterAll, describe, expect, inject, it } from "vitest";
import { closeDeps } from "../api/deps.js";
import { projectRoot } from "../scripts/infra/paths.js";
import { openedSteps, TEST_ENCRYPTION_KEY } from "./helpers/context.js";
import { appOn, waitForPoller } from "./helpers/durable-app.js";
import { openAiAnswer, startFakeProvider } from "./helpers/fake-llm-provider.js";
import { startPrivateTemporal } from "./helpers/private-infra.js";
import { cleanEnv, spawnEntry, type Spawned } from "./helpers/processes.js";
import { flow, startTestWorker } from "./helpers/runs.js";

const testNodesDir = path.join(projectRoot, "test", "fixtures", "custom-nodes");

async function expectOneSuccessPerNode(runId: string, nodeIds: string[]) {
  const steps = await openedSteps(runId);
  for (const nodeId of nodeIds) {
    expect(
      steps.filter((s) => s.nodeId === nodeId && s.status === "success"),
      nodeId,
    ).toHaveLength(1);
  }
  return steps;
}

describe("durability", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  /** Starts worker processes on the test's own task queue; those still alive are killed at the end. */
  const workerSpawner = (taskQueue: string, env: Record<string, string> = {}) => {
    const workerEnv = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: taskQueue,
      // The key of the app in this process (testConfig): both seal and open the same payloads.
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: "error",
      // Other test files' webhook deliveries must not land on this short-lived worker's queue.
      WEBHOOK_DISPATCHER: "false",
      ...env,
    });
    return () => {
      const worker = spawnEntry("worker/main.ts", [], workerEnv);
      cleanups.push(async () => {
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      });
      return worker;
    };
  };

  /** A loopback HTTP server for the test, closed at the end; resolves to its base URL. */
  const loopbackServer = async (handler: RequestListener) => {
    const server = createServer(handler);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(async () => {
      server.closeAllConnections();
      server.close();
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it("finishes a run after its worker is killed with SIGKILL in the middle of a node", async () => {
    const taskQueue = `durable-${randomUUID()}`;
    const spawnWorker = workerSpawner(taskQueue, { CUSTOM_NODES_DIR: testNodesDir });
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue });
    cleanups.push(() => closeDeps(api.deps));
    const flowId = await api.createFlow(
      flow(
        [
          // Allowed over a minute, so it has a heartbeat timeout: the lost attempt is noticed in 20 s.
          { id: "slow", type: "test_sleep", config: { ms: 4000 }, timeout_ms: 90_000 },
          { id: "quick", type: "test_sleep", config: { ms: 100 } },
        ],
        [
          ["start", "slow"],
          ["slow", "quick"],
        ],
      ),
    );

    const first: Spawned = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const runId = await api.start(flowId);
    await expect.poll(() => api.stepStatus(runId, "slow"), { timeout: 30_000 }).toBe("running");
    first.child.kill("SIGKILL");
    await first.exited;

    spawnWorker();
    await expect.poll(async () => (await api.run(runId)).status, { timeout: 90_000, interval: 500 }).toBe("success");
    const steps = await expectOneSuccessPerNode(runId, ["start", "slow", "quick"]);
    const slow = steps.filter((s) => s.nodeId === "slow");
    expect(slow.map((s) => s.status)).toEqual(["failed", "success"]);
    expect(slow[0]!.error).toMatchObject({ message: expect.stringMatching(/did not finish/) });
  }, 150_000);

  it("finishes a flow of local and regular nodes killed between them: no step lost or doubled, no call repeated", async () => {
    // The side effect: an HTTP call, counted by its Idempotency-Key.
    const calls = new Map<string, number>();
    const receiver = await loopbackServer((req, res) => {
      const key = String(req.headers["idempotency-key"]);
      calls.set(key, (calls.get(key) ?? 0) + 1);
      req.resume();
      req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}'));
    });
    const taskQueue = `durable-mixed-${randomUUID()}`;
    const spawnWorker = workerSpawner(taskQueue, { CUSTOM_NODES_DIR: testNodesDir, EGRESS_ALLOWLIST: "127.0.0.1" });
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue });
    cleanups.push(() => closeDeps(api.deps));
    const url = `${receiver}/orders`;
    const flowId = await api.createFlow(
      flow(
        [
          { id: "shape", type: "set", config: { fields: { order: "{{ input.n }}" } } },
          { id: "call", type: "http_request", config: { method: "POST", url, body: "{{ input }}" } },
          { id: "pick", type: "set", config: { fields: { status: "{{ input.status }}" } } },
          // Allowed over a minute, so it has a heartbeat timeout: the lost attempt is noticed in 20 s.
          { id: "nap", type: "test_sleep", config: { ms: 4000 }, timeout_ms: 90_000 },
          { id: "done", type: "set", config: { fields: { done: true } } },
        ],
        [
          ["start", "shape"],
          ["shape", "call"],
          ["call", "pick"],
          ["pick", "nap"],
          ["nap", "done"],
        ],
      ),
    );

    const first = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const runId = await api.start(flowId);
    // Killed after the call and the local node after it, while the next regular node runs.
    await expect.poll(() => api.stepStatus(runId, "nap"), { timeout: 30_000 }).toBe("running");
    first.child.kill("SIGKILL");
    await first.exited;

    spawnWorker();
    await expect.poll(async () => (await api.run(runId)).status, { timeout: 90_000, interval: 500 }).toBe("success");
    expect((await api.run(runId)).output).toEqual({ done: true });
    const steps = await expectOneSuccessPerNode(runId, ["start", "shape", "call", "pick", "nap", "done"]);
    expect(steps.find((s) => s.nodeId === "pick")?.output).toEqual({ status: 200 });
    // Each local node ran once as far as its record goes; the call was made once.
    for (const nodeId of ["start", "shape", "pick", "done"]) {
      expect(
        steps.filter((s) => s.nodeId === nodeId).map((s) => s.status),
        nodeId,
      ).toEqual(["success"]);
    }
    expect([...calls]).toEqual([[`${runId}:call`, 1]]);
  }, 150_000);

  it("finishes a run after the Temporal server restarts in the middle of it", async () => {
    const server = await startPrivateTemporal();
    cleanups.push(() => server.close());
    const taskQueue = `restart-${randomUUID()}`;
    const worker = await startTestWorker({ taskQueue, address: server.address });
    cleanups.push(() => worker.stop());
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_ADDRESS: server.address });
    cleanups.push(() => closeDeps(api.deps));
    const flowId = await api.createFlow(
      flow(
        [
          { id: "wait", type: "delay", config: { duration: "4s" } },
          { id: "after", type: "test_echo", config: { value: "{{ input.n }}" } },
        ],
        [
          ["start", "wait"],
          ["wait", "after"],
        ],
      ),
    );
    const runId = await api.start(flowId);
    await expect.poll(() => api.stepStatus(runId, "wait"), { timeout: 30_000 }).toBe("running");

    await server.restart();

    await expect.poll(async () => (await api.run(runId)).status, { timeout: 90_000, interval: 500 }).toBe("success");
    expect((await api.run(runId)).output).toMatchObject({ value: 1 });
    await expectOneSuccessPerNode(runId, ["start", "wait", "after"]);
  }, 150_000);
  it("completes a webhook delivery whose worker is killed with SIGKILL while a retry is pending", async () => {
    let calls = 0;
    const receiver = await loopbackServer((req, res) => {
      req.resume();
      req.on("end", () => {
        calls++;
        res.writeHead(calls === 1 ? 500 : 200).end();
      });
    });
    const taskQueue = `durable-hooks-${randomUUID()}`;
    const spawnWorker = workerSpawner(taskQueue, { EGRESS_ALLOWLIST: "127.0.0.1" });
    const api = await appOn({
      TEMPORAL_TASK_QUEUE: taskQueue,
      WEBHOOK_RETRY_DELAYS: "4s",
      EGRESS_ALLOWLIST: "127.0.0.1",
    });
    cleanups.push(() => closeDeps(api.deps));
    const settings = (method: "get" | "post", path: string) =>
      request(api.app)[method](`/api/settings/webhooks${path}`).set("Cookie", api.cookie);
    const endpoint = await settings("post", "/").send({
      url: `${receiver}/hook`,
      events: ["agent.completed"],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    const first = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const ping = await settings("post", `/${endpoint.body.id}/ping`);
    expect(ping.status).toBe(202);
    // The first attempt fails; the workflow now waits 4 s on a durable timer for the retry.
    await expect
      .poll(async () => (await settings("get", `/deliveries/${ping.body.id}`)).body.attempts, { timeout: 30_000 })
      .toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;

    spawnWorker();
    await expect
      .poll(async () => (await settings("get", `/deliveries/${ping.body.id}`)).body.status, {
        timeout: 90_000,
        interval: 500,
      })
      .toBe("succeeded");
    const delivery = (await settings("get", `/deliveries/${ping.body.id}`)).body;
    expect(delivery.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
    expect(calls).toBe(2);
  }, 150_000);

  it("finishes an agent run whose worker is killed between two model calls, repeating no finished call", async () => {
    const provider = await startFakeProvider();
    cleanups.push(async () => provider.close());
    // The tool the agent calls answers slowly: the worker is killed while it waits.
    const toolHits: Array<string | undefined> = [];
    const toolUrl = `${await loopbackServer((req, res) => {
      toolHits.push(req.headers["idempotency-key"] as string | undefined);
      setTimeout(() => res.writeHead(200, { "Content-Type": "application/json" }).end('{"stock":7}'), 3000);
    })}/stock`;
    const taskQueue = `durable-agent-${randomUUID()}`;
    const spawnWorker = workerSpawner(taskQueue, {
      EGRESS_ALLOWLIST: "127.0.0.1",
      OPENAI_API_KEY: "sk-durable-test",
      OPENAI_BASE_URL: `${provider.url}/v1`,
    });
    const api = await appOn({ TEMPORAL_TASK_QUEUE: taskQueue });
    cleanups.push(() => closeDeps(api.deps));
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "http_call", arguments: JSON.stringify({ url: toolUrl }) }] }),
      openAiAnswer({ text: "7 in stock" }),
    );

    const first = spawnWorker();
    await waitForPoller(inject("temporalAddress"), taskQueue);
    const started = await request(api.app)
      .post("/api/agent/run")
      .set("Cookie", api.cookie)
      .send({ instructions: "How many in stock?", model: "gpt-test" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const agentRunId = started.body.agent_run_id as string;
    // The first model call has finished and the tool call is under way: kill the worker.
    await expect.poll(() => toolHits.length, { timeout: 30_000 }).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;

    spawnWorker();
    const detail = async () =>
      (await request(api.app).get(`/api/agent/runs/${agentRunId}`).set("Cookie", api.cookie)).body;
    await expect
      .poll(async () => (await detail()).agent_run.status, { timeout: 90_000, interval: 500 })
      .toBe("success");
    const { agent_run: run, steps } = await detail();
    expect(run).toMatchObject({ answer: "7 in stock", steps: 2 });
    // Each model call reached the provider once; the interrupted tool call was retried with its key.
    expect(provider.calls).toHaveLength(2);
    expect(JSON.stringify(provider.calls[1]!.body.messages)).toContain("stock");
    expect(toolHits.length).toBeGreaterThanOrEqual(2);
    expect(new Set(toolHits)).toEqual(new Set([`${agentRunId}:2`]));
    expect(steps.map((s: { kind: string; name: string }) => `${s.kind}:${s.name}`)).toEqual([
      "model:gpt-test",
      "tool:http.call",
      "model:gpt-test",
    ]);
  }, 150_000);
});
