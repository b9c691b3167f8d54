// npm run bench:tree-cancel: cancelling the root of a growing run tree (issue 47). The service runs
// as npm start runs it (the API with its in-process worker, a worker process, Temporal persisting
// to a file, PostgreSQL). A flow that calls itself twice after a short delay (written straight into
// the database, as a cycle saved before the check would be) grows a tree until it holds --runs
// runs; then its root is cancelled. Prints:
//  - the time from the cancel's request to its answer, to every run of the tree recorded ended,
//    and to every workflow of the tree closed in Temporal
//  - the runs recorded after the cancel was sent, and after it answered (goal: none)
//  - how the tree's runs ended (goal: every one cancelled, none failed "never started"), and step
//    rows left running in runs that ended
// Options: --runs (default 600), --fanout (default 2), --delay (default 300ms), --repeat (default 1).
import { parseArgs } from "node:util";
import { createPrismaClient } from "../lib/db.js";
import { addCpuUsed, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "600" },
    fanout: { type: "string", default: "2" },
    delay: { type: "string", default: "300ms" },
    repeat: { type: "string", default: "1" },
  },
});
const RUNS = Math.min(Math.max(Number(values.runs) || 600, 10), 4000);
const FANOUT = Math.min(Math.max(Number(values.fanout) || 2, 2), 8);
const REPEAT = Math.min(Math.max(Number(values.repeat) || 1, 1), 10);
/** How long the tree may take to grow, and to end once cancelled. */
const GROW_LIMIT_MS = 180_000;
const END_LIMIT_MS = 120_000;

const service = await startServiceProcesses();
const prisma = createPrismaClient(service.databaseUrl, { maxConnections: 2 });

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` every 50 ms until `done`; the time it took, in ms from `since`. */
async function until<T>(what: string, since: number, read: () => Promise<T>, done: (value: T) => boolean) {
  for (;;) {
    const value = await read();
    if (done(value)) return { ms: performance.now() - since, value };
    if (performance.now() - since > END_LIMIT_MS) throw new Error(`${what}: not after ${END_LIMIT_MS} ms`);
    await pause(50);
  }
}

try {
  const workspace = await prisma.workspace.findFirstOrThrow({ select: { id: true } });
  const created = await service.call("POST", "/api/flows", {
    name: "Grow",
    definition: { nodes: [{ id: "start", type: "manual" }], edges: [] },
  });
  const flowId = created.id as string;
  const calls = Array.from({ length: FANOUT }, (_, i) => ({
    id: `call${i}`,
    type: "flow.call",
    config: { flow_id: flowId },
  }));
  await prisma.flow.update({
    where: { id: flowId },
    data: {
      definition: {
        nodes: [
          { id: "start", type: "manual" },
          { id: "wait", type: "delay", config: { duration: values.delay } },
          ...calls,
        ],
        edges: [{ from: "start", to: "wait" }, ...calls.map((call) => ({ from: "wait", to: call.id }))],
      },
    },
  });
  await service.call("PUT", "/api/workspace/settings", { run_tree_max_runs: 5000, run_tree_max_depth: 16 });

  const rows: Array<Record<string, string | number>> = [];
  for (let round = 0; round < REPEAT; round++) {
    const started = await service.call("POST", `/api/workflows/${flowId}/run`, { input: {} });
    const rootId = started.run_id as string;
    const inTree = { OR: [{ id: rootId }, { rootRunId: rootId }] };
    const growStart = performance.now();
    let grown = 0;
    while ((grown = await prisma.run.count({ where: inTree })) < RUNS) {
      if (performance.now() - growStart > GROW_LIMIT_MS) throw new Error(`the tree grew to ${grown} runs only`);
      await pause(50);
    }
    const growMs = performance.now() - growStart;
    const running = await prisma.run.count({ where: { ...inTree, status: "running" } });

    const cpuBefore = service.cpu();
    const sentAt = new Date();
    const t0 = performance.now();
    await service.call("POST", `/api/runs/${rootId}/cancel`);
    const answerMs = performance.now() - t0;
    const answeredAt = new Date();

    const recordsEnded = await until(
      "every run of the tree to end",
      t0,
      () => prisma.run.count({ where: { ...inTree, status: "running" } }),
      (left) => left === 0,
    );
    const workflowsClosed = await until(
      "every workflow of the tree to close",
      t0,
      () => service.client.workflow.count(`SvcWorkspaceId = '${workspace.id}' AND ExecutionStatus = 'Running'`),
      (left) => left.count === 0,
    );
    const cpuUsed: Record<string, number> = {};
    addCpuUsed(cpuUsed, cpuBefore, service.cpu());
    // Anything started late has had time to show up.
    await pause(2000);
    const tree = await prisma.run.findMany({ where: inTree, select: { id: true, status: true, startedAt: true } });
    const byStatus = new Map<string, number>();
    for (const run of tree) byStatus.set(run.status, (byStatus.get(run.status) ?? 0) + 1);
    const neverStarted = await prisma.$queryRaw<Array<{ count: number }>>`
      SELECT count(*)::int AS count FROM runs
      WHERE (id = ${rootId} OR root_run_id = ${rootId}) AND status = 'failed' AND error::text LIKE '%never started%'`;
    const stepsRunning = await prisma.runStep.count({
      where: { status: "running", run: { ...inTree, status: { not: "running" } } },
    });
    rows.push({
      "runs at cancel": grown,
      "running at cancel": running,
      "grown in": seconds(growMs),
      "cancel answered in": seconds(answerMs),
      "records ended in": seconds(recordsEnded.ms),
      "workflows closed in": seconds(workflowsClosed.ms),
      "started after sent": tree.filter((run) => run.startedAt > sentAt).length,
      "started after answer": tree.filter((run) => run.startedAt > answeredAt).length,
      "runs in tree": tree.length,
      statuses: [...byStatus].map(([status, count]) => `${status} ${count}`).join(", "),
      "failed never started": neverStarted[0]?.count ?? 0,
      "steps left running": stepsRunning,
      "CPU until closed": Object.entries(cpuUsed)
        .map(([part, used]) => `${part} ${used.toFixed(1)} s`)
        .join(", "),
    });
  }
  console.log(
    `A tree of self-calling flows (fan-out ${FANOUT}, delay ${values.delay}), its root cancelled at ${RUNS} runs:`,
  );
  for (const row of rows) console.table(row);
} finally {
  await prisma.$disconnect();
  await service.close();
}
