// npm run bench:engine: the run engine against a bare Temporal workflow on the same dev server.
//  - latency p50/p95, one at a time: bare workflow with 3 no-op activities vs our 3-node flow
//    started through the API (HTTP) and awaited to its end
//  - completed runs per second with 50 in flight, both
//  - a 40-node chain: overhead per node
//  - database commits (transactions that wrote) per run
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { percentile } from "./helpers/database.js";
import { passNode, startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "60" },
    runs: { type: "string", default: "600" },
    inflight: { type: "string", default: "50" },
  },
});
const SAMPLES = Math.min(Number(values.samples) || 60, 1000);
const THROUGHPUT_RUNS = Math.min(Number(values.runs) || 600, 5000);
// The dev server's rate swings from one phase to the next (seen: 31 to 60 bare runs/s): more,
// shorter alternations average that out.
const THROUGHPUT_ROUNDS = 4;
const IN_FLIGHT = Math.min(Number(values.inflight) || 50, 200);

const stack = await startBenchStack({
  nodes: [passNode],
  workflowsPath: new URL("./workflows/index.ts", import.meta.url).pathname,
  activities: { noop: async (v: unknown) => v },
});
const { client, call: api } = stack;
const taskQueue = stack.config.TEMPORAL_TASK_QUEUE;
const admin = new pg.Client({ connectionString: stack.databaseUrl });
await admin.connect();

try {
  const chain = (length: number) => ({
    nodes: Array.from({ length }, (_, i) => ({ id: `n${i}`, type: "pass" })),
    edges: Array.from({ length: length - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
  });
  const three = (await api("POST", "/api/flows", { name: "three", definition: chain(3) })).id as string;
  const forty = (await api("POST", "/api/flows", { name: "forty", definition: chain(40) })).id as string;

  const runFlowOnce = (flowId: string) => stack.runFlow(flowId);
  const bareOnce = () =>
    client.workflow.execute("bareThreeActivities", { taskQueue, workflowId: `bare-${randomUUID()}`, args: [{ n: 1 }] });
  const time = async (task: () => Promise<unknown>) => {
    const t = performance.now();
    await task();
    return performance.now() - t;
  };

  // Warm-up.
  for (let i = 0; i < 10; i++) {
    await bareOnce();
    await runFlowOnce(three);
  }

  const bareMs: number[] = [];
  const flowMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    bareMs.push(await time(bareOnce));
    flowMs.push(await time(() => runFlowOnce(three)));
  }
  const fortyMs: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(SAMPLES / 4)); i++) fortyMs.push(await time(() => runFlowOnce(forty)));

  // CPU seconds of this process and of the Temporal server, to see where a run's cost goes.
  const serverCpu = () => {
    const fields = readFileSync(`/proc/${stack.temporalPid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  // PostgreSQL: every process named postgres on the machine (the bench's private cluster).
  const postgresCpu = () => {
    let total = 0;
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (!stat.includes("(postgres)")) continue;
        const fields = stat.split(") ")[1]!.split(" ");
        total += (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        // the process ended
      }
    }
    return total;
  };

  // Phases alternate (bare, flow, bare, flow) after a warm-up of each, so that drift on a shared
  // machine falls on both alike; the rate is total runs over total time per kind.
  const totals: Record<string, { runs: number; seconds: number; node: number; server: number; postgres: number }> = {};
  const throughputPhase = async (label: string, task: () => Promise<unknown>, runs: number) => {
    let next = 0;
    const cpuBefore = process.cpuUsage();
    const serverBefore = serverCpu();
    const postgresBefore = postgresCpu();
    const t = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < runs) {
          next++;
          await task();
        }
      }),
    );
    const seconds = (performance.now() - t) / 1000;
    const used = process.cpuUsage(cpuBefore);
    const total = (totals[label] ??= { runs: 0, seconds: 0, node: 0, server: 0, postgres: 0 });
    total.runs += runs;
    total.seconds += seconds;
    total.node += (used.user + used.system) / 1000;
    total.server += (serverCpu() - serverBefore) * 1000;
    total.postgres += (postgresCpu() - postgresBefore) * 1000;
  };
  await throughputPhase("warm-up", bareOnce, IN_FLIGHT * 2);
  await throughputPhase("warm-up", () => runFlowOnce(three), IN_FLIGHT * 2);
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    await throughputPhase("bare", bareOnce, Math.ceil(THROUGHPUT_RUNS / THROUGHPUT_ROUNDS));
    await throughputPhase("flow", () => runFlowOnce(three), Math.ceil(THROUGHPUT_RUNS / THROUGHPUT_ROUNDS));
  }
  const bareRate = totals.bare!.runs / totals.bare!.seconds;
  const flowRate = totals.flow!.runs / totals.flow!.seconds;
  const cpu = Object.fromEntries(
    (["bare", "flow"] as const).map((label) => {
      const t = totals[label]!;
      return [label, { node: t.node / t.runs, server: t.server / t.runs, postgres: t.postgres / t.runs }];
    }),
  );

  // Transactions that wrote: each txid_current() call takes one id itself.
  const writes = async () => Number((await admin.query("SELECT txid_current() AS id")).rows[0].id);
  const commitsPerRun = async (flowId: string, runs: number) => {
    const before = await writes();
    for (let i = 0; i < runs; i++) await runFlowOnce(flowId);
    return (await writes()) - before - 1;
  };
  const threeCommits = (await commitsPerRun(three, 20)) / 20;
  const fortyCommits = (await commitsPerRun(forty, 5)) / 5;

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [bare, ours, chain40] = [sorted(bareMs), sorted(flowMs), sorted(fortyMs)];
  console.log(
    `Run engine vs bare Temporal, one dev server, ${SAMPLES} samples alternated, ${THROUGHPUT_RUNS} runs at ${IN_FLIGHT} in flight`,
  );
  console.table({
    "bare workflow, 3 no-op activities": {
      "p50 ms": percentile(bare, 50).toFixed(1),
      "p95 ms": percentile(bare, 95).toFixed(1),
      "runs/s @50": bareRate.toFixed(1),
    },
    "3-node flow via the API": {
      "p50 ms": percentile(ours, 50).toFixed(1),
      "p95 ms": percentile(ours, 95).toFixed(1),
      "runs/s @50": flowRate.toFixed(1),
    },
    "40-node chain via the API": {
      "p50 ms": percentile(chain40, 50).toFixed(1),
      "p95 ms": percentile(chain40, 95).toFixed(1),
      "runs/s @50": "-",
    },
  });
  console.log("CPU ms per run during the throughput phase (this process = API + worker + load generator):");
  console.table(
    Object.fromEntries(
      Object.entries(cpu).map(([k, v]) => [
        k,
        {
          "this process": v.node.toFixed(1),
          "Temporal server": v.server.toFixed(1),
          PostgreSQL: v.postgres.toFixed(1),
          total: (v.node + v.server + v.postgres).toFixed(1),
        },
      ]),
    ),
  );
  const perNode = (percentile(chain40, 50) - percentile(ours, 50)) / 37;
  console.log(
    `p50 latency ratio (flow / bare): ${(percentile(ours, 50) / percentile(bare, 50)).toFixed(2)} (target <= 1.25)`,
  );
  console.log(`throughput ratio (flow / bare): ${(flowRate / bareRate).toFixed(2)} (target >= 0.8)`);
  console.log(`overhead per node (40-chain vs 3-chain p50): ${perNode.toFixed(1)} ms`);
  console.log(
    `database commits per run: 3 nodes ${threeCommits.toFixed(1)} (target <= 8), 40 nodes ${fortyCommits.toFixed(1)} (target <= 82)`,
  );
} finally {
  await admin.end();
  await stack.close();
}
