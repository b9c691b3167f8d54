// npm run bench:flow-queue: what one reading of GET /api/flows/{id}/queue costs (the editor asks
// every 3 s per open editor). A flow with a concurrency limit of 1 per customer and --keys
// customers (20 unless told), each with a run holding its slot and one waiting at its gate; then
// the reading itself (core/runs/reads/flow-queue.ts, flowQueue) --samples times one at a time,
// with the Temporal calls and SQL statements it makes, against the route (answered from the API
// process's memory within FLOW_QUEUE_CACHE.ttlMs of its last reading).
import { parseArgs } from "node:util";
import type { Client } from "@temporalio/client";
import { flowQueue } from "../core/runs/reads/flow-queue.js";
import { systemClock } from "../lib/clock.js";
import type { PrismaClient } from "../lib/db.js";
import { percentile } from "./helpers/database.js";
import { startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({
  options: { keys: { type: "string", default: "20" }, samples: { type: "string", default: "30" } },
});
const KEYS = Math.min(Math.max(Number(values.keys) || 20, 1), 200);
const SAMPLES = Math.min(Math.max(Number(values.samples) || 30, 5), 1000);

/** The Temporal client with its visibility lists and workflow queries counted. */
function counted(temporal: Client, calls: { list: number; query: number }): Client {
  const workflow = {
    list: (...args: Parameters<Client["workflow"]["list"]>) => {
      calls.list++;
      return temporal.workflow.list(...args);
    },
    getHandle: (workflowId: string) => {
      const handle = temporal.workflow.getHandle(workflowId);
      return {
        query: (...args: Parameters<typeof handle.query>) => {
          calls.query++;
          return handle.query(...args);
        },
      };
    },
  };
  return { connection: temporal.connection, workflow } as unknown as Client;
}

const timed = async (times: number[], read: () => Promise<unknown>) => {
  const t = performance.now();
  await read();
  times.push(performance.now() - t);
};
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { "p50 ms": percentile(sorted, 50).toFixed(1), "p95 ms": percentile(sorted, 95).toFixed(1) };
};

const stack = await startBenchStack();
const runIds: string[] = [];
try {
  const flow = await stack.call("POST", "/api/flows", {
    name: "Queue reading",
    definition: {
      nodes: [
        { id: "start", type: "manual", config: {} },
        { id: "hold", type: "delay", config: { duration: "10m" } },
      ],
      edges: [{ from: "start", to: "hold" }],
      concurrency: { limit: 1, key: "{{ input.customer }}" },
    },
  });
  const flowId = flow.id as string;
  for (let key = 0; key < KEYS; key++) {
    for (let run = 0; run < 2; run++) {
      const started = await stack.call("POST", `/api/workflows/${flowId}/run`, { input: { customer: `c${key}` } });
      runIds.push(started.run_id as string);
    }
  }
  const calls = { list: 0, query: 0, statements: 0 };
  const prisma = stack.prisma.$extends({
    query: {
      async $allOperations({ args, query }) {
        calls.statements++;
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  const deps = { temporal: counted(stack.client, calls), prisma, clock: systemClock, config: stack.config };
  const read = () => flowQueue(deps, stack.workspaceId, flowId);
  const deadline = Date.now() + 120_000;
  while ((await read()).queued < KEYS) {
    if (Date.now() > deadline) throw new Error(`fewer than ${KEYS} runs waiting after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const uncached: number[] = [];
  Object.assign(calls, { list: 0, query: 0, statements: 0 });
  for (let i = 0; i < SAMPLES; i++) await timed(uncached, read);
  const perReading = `${calls.list / SAMPLES} visibility list, ${calls.query / SAMPLES} gate queries, ${calls.statements / SAMPLES} SQL statements`;
  const route: number[] = [];
  for (let i = 0; i < SAMPLES; i++) await timed(route, () => stack.call("GET", `/api/flows/${flowId}/queue`));

  console.log(`${KEYS} keys, each with a run holding its slot and one waiting; ${SAMPLES} readings one at a time`);
  console.log(`one reading asks: ${perReading}`);
  console.table({
    "flowQueue (every reading)": summary(uncached),
    "GET /api/flows/{id}/queue (memory within 2 s)": summary(route),
  });
} finally {
  for (const id of runIds) await stack.call("POST", `/api/runs/${id}/cancel`, {}).catch(() => undefined);
  await stack.close();
}
