// npm run bench:bulk-rerun: a bulk rerun of --runs failed runs (issue 49). The service runs as npm
// start runs it (the API with its in-process worker, a worker process, Temporal persisting to a
// file, PostgreSQL). A flow (trigger -> prepare -> compute) fails at compute on every run; it is
// fixed (version 2); then, alternately, --runs plain runs of version 2 are started through the API
// (--concurrency at once) and the failures are rerun as one bulk operation on the latest version
// from their failed node. Prints, for each:
//  - the time to start all (the operation completed: every rerun recorded and started) and to
//    finish (every run or rerun ended), in s
//  - the CPU per run (or rerun) by process, in ms
// Options: --runs (default 1000), --per-second (BULK_RERUN_PER_SECOND, default 100), --concurrency
// (plain runs in flight, default 20).
import { parseArgs } from "node:util";
import { createPrismaClient } from "../lib/db.js";
import { addCpuUsed, cpuPerRequestText, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    "per-second": { type: "string", default: "100" },
    concurrency: { type: "string", default: "20" },
  },
});
const RUNS = Math.min(Math.max(Number(values.runs) || 1000, 10), 10_000);
const PER_SECOND = Math.min(Math.max(Number(values["per-second"]) || 100, 1), 1000);
const CONCURRENCY = Math.min(Math.max(Number(values.concurrency) || 20, 1), 100);
/** How long one phase may take. */
const PHASE_LIMIT_MS = 15 * 60_000;

const service = await startServiceProcesses({
  env: { BULK_RERUN_PER_SECOND: String(PER_SECOND), BULK_RERUN_MAX_RUNS: String(RUNS) },
});
const prisma = createPrismaClient(service.databaseUrl, { maxConnections: 2 });
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, since: number, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - since;
    if (performance.now() - since > PHASE_LIMIT_MS) throw new Error(`${what}: not after ${PHASE_LIMIT_MS} ms`);
    await pause(200);
  }
}

/** Starts `count` runs of the flow through the API, `CONCURRENCY` requests at once. */
async function startRuns(flowId: string, count: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const n = next++;
        await service.call("POST", `/api/workflows/${flowId}/run`, { input: { n } });
      }
    }),
  );
}

const definition = (field: string) => ({
  nodes: [
    { id: "start", type: "manual" },
    { id: "prepare", type: "set", config: { fields: { n: "{{ input.n }}", price: 3 } } },
    {
      id: "compute",
      type: "code",
      config: {
        code: `if (input.${field} === undefined) throw new Error("no ${field}"); return { total: input.${field} * 2 };`,
      },
    },
  ],
  edges: [
    { from: "start", to: "prepare" },
    { from: "prepare", to: "compute" },
  ],
});

try {
  const created = await service.call("POST", "/api/flows", { name: "Orders", definition: definition("amount") });
  const flowId = created.id as string;
  const ended = (where: object) => prisma.run.count({ where: { flowId, status: { not: "running" }, ...where } });

  const failStart = performance.now();
  await startRuns(flowId, RUNS);
  await until("the failures", failStart, async () => (await ended({ version: 1 })) >= RUNS);
  const failed = await prisma.run.count({ where: { flowId, status: "failed" } });
  console.log(`${failed} of ${RUNS} runs failed at compute in ${seconds(performance.now() - failStart)}`);
  await service.call("PUT", `/api/flows/${flowId}`, { version: 1, definition: definition("price") });

  // Plain runs of the fixed version first, then the bulk rerun: the same number of runs each.
  let cpuBefore = service.cpu();
  const plainStart = performance.now();
  await startRuns(flowId, RUNS);
  const plainStarted = performance.now() - plainStart;
  const plainDone = await until(
    "the plain runs",
    plainStart,
    async () => (await ended({ version: 2, trigger: "api" })) >= RUNS,
  );
  const plainCpu: Record<string, number> = {};
  addCpuUsed(plainCpu, cpuBefore, service.cpu());

  cpuBefore = service.cpu();
  const bulkStart = performance.now();
  const asked = await service.call("POST", "/api/runs/rerun", {
    flow_id: flowId,
    status: "failed",
    from_failed: true,
  });
  const operationId = asked.operation_id as string;
  const bulkStarted = await until("the bulk rerun's starts", bulkStart, async () => {
    const operation = await service.call("GET", `/api/operations/${operationId}`);
    return operation.status === "completed";
  });
  const bulkDone = await until("the reruns", bulkStart, async () => (await ended({ trigger: "rerun" })) >= RUNS);
  const bulkCpu: Record<string, number> = {};
  addCpuUsed(bulkCpu, cpuBefore, service.cpu());
  const operation = await service.call("GET", `/api/operations/${operationId}`);
  const reruns = await prisma.run.groupBy({ by: ["rerunOf"], where: { flowId, trigger: "rerun" }, _count: true });

  console.log(`\n${RUNS} runs each, bulk at ${PER_SECOND}/s, plain ${CONCURRENCY} in flight:`);
  console.log(`plain runs : all started ${seconds(plainStarted)}, all ended ${seconds(plainDone)}`);
  console.log(`             CPU per run ${cpuPerRequestText(plainCpu, RUNS)}`);
  console.log(`bulk rerun : all started ${seconds(bulkStarted)}, all ended ${seconds(bulkDone)}`);
  console.log(`             CPU per rerun ${cpuPerRequestText(bulkCpu, RUNS)}`);
  console.log(`             counts ${JSON.stringify(operation.counts)}`);
  console.log(
    `             reruns per failed run: max ${Math.max(...reruns.map((r) => r._count))}, runs rerun ${reruns.length}`,
  );
} finally {
  await prisma.$disconnect();
  await service.close();
}
