// npm run bench:engine: the run engine against a bare Temporal workflow on the same dev server.
// Both run as deployed: the service's API and worker are processes of their own (as npm start
// runs them), and so is the bare workflow's worker; this process only generates the load.
//  - latency p50/p95, one at a time: bare workflow with 3 no-op activities vs our 3-node flow
//    started through the API (HTTP) and awaited to its end
//  - completed runs per second with 50 in flight, both
//  - a 40-node chain: overhead per node
//  - database commits (transactions that wrote) per run
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { percentile } from "./helpers/database.js";
import { startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "100" },
    seconds: { type: "string", default: "6" },
    rounds: { type: "string", default: "16" },
    inflight: { type: "string", default: "50" },
  },
});
const SAMPLES = Math.min(Number(values.samples) || 100, 1000);
/** Length of one throughput phase; its first second is not counted (the load ramps up). */
const PHASE_SECONDS = Math.min(Math.max(Number(values.seconds) || 6, 3), 120);
const RAMP_SECONDS = 1;
// Rounds of one phase of each kind; their order alternates (see the throughput phases). This
// machine's speed swings by a third over minutes: many short phases average that out.
const THROUGHPUT_ROUNDS = Math.min(Math.max(Number(values.rounds) || 16, 1), 100);
const IN_FLIGHT = Math.min(Number(values.inflight) || 50, 200);

const service = await startServiceProcesses({ bareWorker: true });
const { client, call: api } = service;
const admin = new pg.Client({ connectionString: service.databaseUrl });
await admin.connect();

try {
  const chain = (length: number) => ({
    nodes: Array.from({ length }, (_, i) => ({ id: `n${i}`, type: "pass" })),
    edges: Array.from({ length: length - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
  });
  const three = (await api("POST", "/api/flows", { name: "three", definition: chain(3) })).id as string;
  const forty = (await api("POST", "/api/flows", { name: "forty", definition: chain(40) })).id as string;

  const runFlowOnce = (flowId: string) => service.runFlow(flowId);
  const bareOnce = () =>
    client.workflow.execute("bareThreeActivities", {
      taskQueue: service.bareTaskQueue,
      workflowId: `bare-${randomUUID()}`,
      args: [{ n: 1 }],
    });
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

  // Each pair in turn order (bare, flow), then (flow, bare): neither kind always runs second.
  const bareMs: number[] = [];
  const flowMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const sampleBare = async () => bareMs.push(await time(bareOnce));
    const sampleFlow = async () => flowMs.push(await time(() => runFlowOnce(three)));
    if (i % 2 === 0) await sampleBare().then(sampleFlow);
    else await sampleFlow().then(sampleBare);
  }
  const fortyMs: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(SAMPLES / 4)); i++) fortyMs.push(await time(() => runFlowOnce(forty)));

  // Throughput at IN_FLIGHT runs in flight: each phase keeps that many going for PHASE_SECONDS
  // and counts the runs that end after the first second and before the phase's end, so the
  // ramp-up and the ramp-down (runs left in flight drain uncounted) stay out of the rate. The dev
  // server slows down as its history grows (seen: 30 -> 60 ms of server CPU per run over 2,400
  // runs), so phases run in ABBA order (bare, flow, flow, bare, ...), which cancels a steady drift.
  const phaseRates: string[] = [];
  const totals: Record<string, { counted: number; seconds: number; runs: number; cpu: Record<string, number> }> = {};
  const throughputPhase = async (label: string, task: () => Promise<unknown>) => {
    const cpuBefore = service.cpu();
    const start = performance.now();
    const windowStart = start + RAMP_SECONDS * 1000;
    const end = start + PHASE_SECONDS * 1000;
    let counted = 0;
    let runs = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          await task();
          runs++;
          const now = performance.now();
          if (now >= windowStart && now <= end) counted++;
        }
      }),
    );
    const cpuAfter = service.cpu();
    const seconds = PHASE_SECONDS - RAMP_SECONDS;
    phaseRates.push(`${label} ${(counted / seconds).toFixed(1)}`);
    const total = (totals[label] ??= { counted: 0, seconds: 0, runs: 0, cpu: {} });
    total.counted += counted;
    total.seconds += seconds;
    total.runs += runs;
    for (const [part, used] of Object.entries(cpuAfter)) {
      total.cpu[part] = (total.cpu[part] ?? 0) + used - cpuBefore[part as keyof typeof cpuBefore]!;
    }
  };
  await throughputPhase("warm-up", bareOnce);
  await throughputPhase("warm-up", () => runFlowOnce(three));
  const barePhase = () => throughputPhase("bare", bareOnce);
  const flowPhase = () => throughputPhase("flow", () => runFlowOnce(three));
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    if (round % 2 === 0) await barePhase().then(flowPhase);
    else await flowPhase().then(barePhase);
  }
  const bareRate = totals.bare!.counted / totals.bare!.seconds;
  const flowRate = totals.flow!.counted / totals.flow!.seconds;

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
    `Run engine vs bare Temporal, one dev server, ${SAMPLES} samples alternated, ${THROUGHPUT_ROUNDS * 2} phases of ${PHASE_SECONDS} s at ${IN_FLIGHT} in flight`,
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
  console.log("CPU ms per run during the throughput phases, per process:");
  console.table(
    Object.fromEntries(
      (["bare", "flow"] as const).map((label) => {
        const { runs, cpu } = totals[label]!;
        const perRun = Object.fromEntries(Object.entries(cpu).map(([part, used]) => [part, (used * 1000) / runs]));
        const sum = Object.values(perRun).reduce((a, b) => a + b, 0);
        return [
          label,
          { ...Object.fromEntries(Object.entries(perRun).map(([k, v]) => [k, v.toFixed(1)])), total: sum.toFixed(1) },
        ];
      }),
    ),
  );
  const perNode = (percentile(chain40, 50) - percentile(ours, 50)) / 37;
  console.log(
    `p50 latency ratio (flow / bare): ${(percentile(ours, 50) / percentile(bare, 50)).toFixed(2)} (target <= 1.25)`,
  );
  console.log(`throughput ratio (flow / bare): ${(flowRate / bareRate).toFixed(2)} (target >= 0.8)`);
  console.log(`runs/s per phase, in order: ${phaseRates.slice(2).join(", ")}`);
  console.log(`overhead per node (40-chain vs 3-chain p50): ${perNode.toFixed(1)} ms`);
  console.log(
    `database commits per run: 3 nodes ${threeCommits.toFixed(1)} (target <= 8), 40 nodes ${fortyCommits.toFixed(1)} (target <= 82)`,
  );
} finally {
  await admin.end();
  await service.close();
}
