// The production topology for real: the Temporal server built from the Go module proxy, on
// PostgreSQL, with mutual TLS on its frontend; two API processes and two worker processes on
// ports of their own, connected over mTLS. Requests alternate between the APIs: hooks, an
// approval decided through the other API, flow.call, a schedule, an agent run; then one API, one
// worker and the Temporal server are killed with runs in flight, and every run ends whole.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sleep } from "../scripts/infra/process.js";
import { connectToCluster } from "../scripts/infra/temporal-cluster.js";
import {
  faultsOf,
  inLanes,
  NO_FAULTS,
  mixedFlow,
  runningCount,
  startIdempotentReceiver,
  tallyChaos,
} from "./helpers/chaos.js";
import { startClusterTemporal, startServiceReplicas, type ServiceProcess } from "./helpers/cluster.js";
import { TEST_ENCRYPTION_KEY, testPrisma } from "./helpers/context.js";
import { openAiAnswer, startFakeProvider } from "./helpers/fake-llm-provider.js";
import { TEST_PASSWORD, createTestUser } from "./helpers/identity.js";
import { loginOverHttp } from "./helpers/processes.js";

const log = (line: string) => process.stdout.write(`[cluster] ${line}\n`);

interface Answer<T> {
  status: number;
  body: T;
}
interface FlowBody {
  id: string;
  version: number;
  hook: { path: string };
}
interface RunBody {
  run: { status: string; output: unknown };
}

// Each test waits on several processes at once, under the whole suite's load: more than the default 60 s.
describe(
  "the production topology: Temporal server on PostgreSQL over mTLS, two APIs, two workers",
  { timeout: 120_000 },
  () => {
    let temporal: Awaited<ReturnType<typeof startClusterTemporal>>;
    let services: Awaited<ReturnType<typeof startServiceReplicas>>;
    let receiver: Awaited<ReturnType<typeof startIdempotentReceiver>>;
    let provider: Awaited<ReturnType<typeof startFakeProvider>>;
    let cookie: string;
    let apiA: ServiceProcess;
    let apiB: ServiceProcess;

    beforeAll(async () => {
      const started = Date.now();
      receiver = await startIdempotentReceiver();
      provider = await startFakeProvider();
      // The first build of the server happens here (minutes on two cores; seconds once cached).
      temporal = await startClusterTemporal(inject("databaseUrl"), "cluster_e2e", log);
      services = await startServiceReplicas(temporal, {
        databaseUrl: inject("databaseUrl"),
        taskQueue: `cluster-${randomUUID()}`,
        encryptionKey: TEST_ENCRYPTION_KEY,
        extraEnv: {
          EGRESS_ALLOWLIST: "127.0.0.1",
          HOOK_RATE_LIMIT: "100000",
          OPENAI_API_KEY: "sk-test-cluster",
          OPENAI_BASE_URL: `${provider.url}/v1`,
        },
      });
      [apiA, apiB] = services.apis as [ServiceProcess, ServiceProcess];
      const user = await createTestUser("cluster");
      cookie = await loginOverHttp(apiA.url!, user.email, TEST_PASSWORD);
      log(`cluster, 2 APIs and 2 workers up in ${Date.now() - started} ms`);
    }, 60 * 60_000);

    afterAll(async () => {
      await services?.stopAll();
      await temporal?.close();
      provider?.close();
      receiver?.close();
    });

    /** A JSON request to one API with the session (sessions live in PostgreSQL: valid on both). */
    async function call<T = Record<string, unknown>>(
      api: ServiceProcess,
      method: string,
      path: string,
      body?: unknown,
    ): Promise<Answer<T>> {
      const res = await fetch(`${api.url}${path}`, {
        method,
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as T };
    }

    async function createFlow(api: ServiceProcess, name: string, definition: object, status = "active") {
      const res = await call<FlowBody>(api, "POST", "/api/flows", { name, definition, status });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    }

    async function startRun(api: ServiceProcess, flowId: string, input: object) {
      const res = await call(api, "POST", `/api/workflows/${flowId}/run`, { input });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.run_id as string;
    }

    /** Polls the run through `api` until it is no longer running. */
    async function runToEnd(api: ServiceProcess, runId: string, timeout = 60_000) {
      await expect
        .poll(async () => (await call<RunBody>(api, "GET", `/api/runs/${runId}`)).body.run?.status, {
          timeout,
          interval: 250,
        })
        .not.toBe("running");
      return (await call<RunBody>(api, "GET", `/api/runs/${runId}`)).body.run;
    }

    const postHook = (api: ServiceProcess, path: string, body: object) =>
      fetch(`${api.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });

    const hookFlow = (mode: "sync" | "async") => ({
      nodes: [
        { id: "start", type: "http_trigger", config: { mode, sync_timeout_ms: 25_000 } },
        { id: "shape", type: "set", config: { fields: { order: "order {{ input.body.order }}" } } },
      ],
      edges: [{ from: "start", to: "shape" }],
    });

    it("lets in only clients with a certificate of the cluster's CA", async () => {
      const connection = await connectToCluster(temporal);
      try {
        const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace: temporal.namespace });
        expect(namespaceInfo?.name).toBe("default");
      } finally {
        await connection.close();
      }
      // TLS that trusts the server but shows no certificate of its own, then no TLS at all.
      const serverOnly = {
        serverRootCACertificate: readFileSync(temporal.certificates.caFile),
        serverNameOverride: temporal.certificates.serverName,
      };
      for (const tls of [serverOnly, false as const]) {
        const answer = await Connection.connect({ address: temporal.address, tls, connectTimeout: 3000 })
          .then(async (refused) => {
            try {
              await refused.withDeadline(Date.now() + 3000, () => refused.workflowService.getSystemInfo({}));
              return "answered";
            } finally {
              await refused.close();
            }
          })
          .catch((error: Error) => error.message);
        expect(answer, JSON.stringify(tls)).not.toBe("answered");
      }
    });

    it("answers a sync hook on one API at once after the flow is activated through the other, and async hooks either way", async () => {
      const syncId = await createFlow(apiA, "Cluster sync hook", hookFlow("sync"), "inactive");
      const detail = await call<FlowBody>(apiA, "GET", `/api/flows/${syncId}`);
      const hookPath = detail.body.hook.path;
      expect((await postHook(apiB, hookPath, { order: 1 })).status).toBe(404);

      const activated = await call(apiA, "PUT", `/api/flows/${syncId}`, {
        version: detail.body.version,
        status: "active",
      });
      expect(activated.status, JSON.stringify(activated.body)).toBe(200);
      const syncAnswer = await postHook(apiB, hookPath, { order: 7 });
      const syncBody = (await syncAnswer.json()) as Record<string, unknown>;
      expect(syncAnswer.status, JSON.stringify(syncBody)).toBe(200);
      expect(syncBody).toMatchObject({ status: "success", output: { order: "order 7" } });

      const asyncId = await createFlow(apiB, "Cluster async hook", hookFlow("async"));
      const asyncPath = (await call<FlowBody>(apiB, "GET", `/api/flows/${asyncId}`)).body.hook.path;
      const accepted = await postHook(apiA, asyncPath, { order: 8 });
      expect(accepted.status).toBe(202);
      const { run_id: runId } = (await accepted.json()) as { run_id: string };
      const run = await runToEnd(apiB, runId);
      expect(run).toMatchObject({ status: "success", output: { order: "order 8" } });
    });

    it("waits for an approval that the other API decides", async () => {
      const flowId = await createFlow(apiA, "Cluster approval", {
        nodes: [
          { id: "start", type: "manual" },
          { id: "ask", type: "wait", config: { mode: "approval", message: "Ship order {{ input.n }}?" } },
          { id: "ship", type: "set", config: { fields: { shipped: "yes" } } },
        ],
        edges: [
          { from: "start", to: "ask" },
          { from: "ask", to: "ship", branch: "approved" },
        ],
      });
      const runId = await startRun(apiA, flowId, { n: 3 });
      let waitId: string | undefined;
      await expect
        .poll(
          async () => {
            const { body } = await call(apiB, "GET", `/api/runs/${runId}/waits`);
            waitId = (body.items as Array<{ id: string; status: string }> | undefined)?.find(
              (wait) => wait.status === "pending",
            )?.id;
            return waitId;
          },
          { timeout: 30_000, interval: 250 },
        )
        .toBeDefined();
      const decided = await call(apiB, "POST", `/api/waits/${waitId}/decision`, { decision: "approve", comment: "ok" });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      expect(await runToEnd(apiA, runId)).toMatchObject({ status: "success", output: { shipped: "yes" } });
    });

    it("runs a flow.call child flow", async () => {
      const child = await createFlow(apiB, "Cluster child", {
        nodes: [
          { id: "start", type: "manual" },
          { id: "greet", type: "set", config: { fields: { greeting: "hello {{ input.who }}" } } },
        ],
        edges: [{ from: "start", to: "greet" }],
      });
      const parent = await createFlow(apiA, "Cluster parent", {
        nodes: [
          { id: "start", type: "manual" },
          { id: "call", type: "flow.call", config: { flow_id: child, input: { who: "{{ input.name }}" } } },
        ],
        edges: [{ from: "start", to: "call" }],
      });
      const runId = await startRun(apiB, parent, { name: "Ada" });
      expect(await runToEnd(apiA, runId)).toMatchObject({ status: "success", output: { greeting: "hello Ada" } });
      const children = await testPrisma().run.findMany({ where: { parentRunId: runId } });
      expect(children.map((run) => [run.trigger, run.status])).toEqual([["flow.call", "success"]]);
    });

    it("fires a schedule", async () => {
      const flowId = await createFlow(apiA, "Cluster schedule", {
        nodes: [
          { id: "start", type: "schedule", config: { interval: "2s" } },
          { id: "tick", type: "set", config: { fields: { ticked: "yes" } } },
        ],
        edges: [{ from: "start", to: "tick" }],
      });
      try {
        await expect
          .poll(() => testPrisma().run.count({ where: { flowId, trigger: "schedule", status: "success" } }), {
            timeout: 60_000,
            interval: 500,
          })
          .toBeGreaterThanOrEqual(1);
      } finally {
        const { body } = await call<FlowBody>(apiB, "GET", `/api/flows/${flowId}`);
        await call(apiB, "PUT", `/api/flows/${flowId}`, { version: body.version, status: "inactive" });
      }
    });

    it("runs an agent against a stub model provider", async () => {
      provider.script("openai", openAiAnswer({ text: "All clusters are go." }));
      const res = await call(apiB, "POST", "/api/agent/run", {
        agent: "cluster",
        instructions: "Report",
        provider: "openai",
        model: "gpt-test",
        wait: 30_000,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ status: "success", answer: "All clusters are go." });
      expect(provider.calls).toHaveLength(1);
    });

    it("ends every run whole after one API, one worker and the Temporal server are killed with runs in flight", async () => {
      const flow = mixedFlow(receiver.url, { lead: "{{ trigger.lead }}", delay: "2s" });
      const flowId = await createFlow(apiA, "Cluster chaos", flow);
      const count = 24;
      const runIds: string[] = new Array(count);
      // Alternately through both APIs; leads of 1 to 4 s spread the runs over their nodes.
      await inLanes(
        Array.from({ length: count }, (_, i) => i),
        6,
        async (i) => {
          runIds[i] = await startRun(i % 2 === 0 ? apiA : apiB, flowId, { n: i, lead: `${1 + (i % 4)}s` });
        },
      ).all;
      await expect
        .poll(
          () => testPrisma().runStep.count({ where: { runId: { in: runIds }, nodeId: "nap", status: "running" } }),
          {
            timeout: 60_000,
            interval: 200,
          },
        )
        .toBeGreaterThanOrEqual(1);
      const inFlight = await runningCount(testPrisma(), runIds);

      const [workerOne] = services.workers;
      await Promise.all([apiA.kill(), workerOne!.kill(), temporal.kill()]);
      log(`killed api-1, worker-1 and the Temporal server with ${inFlight} of ${count} runs in flight`);
      await sleep(2000);
      await temporal.start();
      await Promise.all([apiA.start(), workerOne!.start()]);

      await expect.poll(() => runningCount(testPrisma(), runIds), { timeout: 180_000, interval: 1000 }).toBe(0);
      const tally = await tallyChaos(testPrisma(), runIds, receiver, flow);
      expect(faultsOf(tally)).toEqual(NO_FAULTS);
      expect(inFlight).toBeGreaterThan(0);
      // Both APIs answer again, the restarted one included.
      for (const api of [apiA, apiB])
        expect((await call<RunBody>(api, "GET", `/api/runs/${runIds[0]}`)).body.run.status).toBe("success");
    }, 300_000);
  },
);
