// npm run bench:engine: the run engine against a bare Temporal workflow on the same dev server.
// Both run as deployed: the service's API and worker are processes of their own (as npm start
// runs them), and so is the bare workflow's worker; this process only generates the load.
//  - latency p50/p95, one at a time: bare workflow with 3 no-op activities vs our 3-node flows
//    started through the API (HTTP) and awaited to its end: one of regular nodes (a no-op custom
//    node), one of quick nodes (manual -> set -> set, local activities); and, as the floor of
//    the latter, a bare workflow with 3 no-op local activities
//  - completed runs per second with 50 in flight, all four
//  - 40-node chains of both kinds: overhead per node
//  - database commits (transactions that wrote) per run
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { percentile } from "./helpers/database.js";
import { addCpuUsed, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "100" },
    seconds: { type: "string", default: "6" },
    rounds: { type: "string", default: "8" },
    inflight: { type: "string", default: "50" },
  },
});
const SAMPLES = Math.min(Number(values.samples) || 100, 1000);
/** Length of one throughput phase; its first second is not counted (the load ramps up). */
const PHASE_SECONDS = Math.min(Math.max(Number(values.seconds) || 6, 3), 120);
const RAMP_SECONDS = 1;
// Rounds of one phase of each kind; their order alternates (see the throughput phases). This
// machine's speed swings by a third over minutes: many short phases average that out.
const THROUGHPUT_ROUNDS = Math.min(Math.max(Number(values.rounds) || 8, 1), 100);
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
  /** Quick nodes: a manual entry, then set nodes, each adding a field. */
  const quickChain = (length: number) => ({
    nodes: [
      { id: "n0", type: "manual" },
      ...Array.from({ length: length - 1 }, (_, i) => ({
        id: `n${i + 1}`,
        type: "set",
        config: { fields: { [`f${i + 1}`]: i + 1 }, keep_input: true },
      })),
    ],
    edges: Array.from({ length: length - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
  });
  const created = async (name: string, definition: object) =>
    (await api("POST", "/api/flows", { name, definition })).id as string;
  const three = await created("three", chain(3));
  const forty = await created("forty", chain(40));
  const threeQuick = await created("three quick", quickChain(3));
  const fortyQuick = await created("forty quick", quickChain(40));

  const runFlowOnce = (flowId: string) => service.runFlow(flowId);
  const bareOnce = (workflow = "bareThreeActivities") =>
    client.workflow.execute(workflow, {
      taskQueue: service.bareTaskQueue,
      workflowId: `bare-${randomUUID()}`,
      args: [{ n: 1 }],
    });
  const bareLocalOnce = () => bareOnce("bareThreeLocalActivities");
  /** The kinds measured side by side, in the order of the tables. */
  const kinds = [
    { label: "bare", task: () => bareOnce() },
    { label: "flow", task: () => runFlowOnce(three) },
    { label: "quick", task: () => runFlowOnce(threeQuick) },
    { label: "bare local", task: bareLocalOnce },
  ];
  const time = async (task: () => Promise<unknown>) => {
    const t = performance.now();
    await task();
    return performance.now() - t;
  };

  // Warm-up.
  for (let i = 0; i < 10; i++) for (const { task } of kinds) await task();

  // One sample of each kind per turn, forwards then backwards: no kind always runs first or last.
  const latencies = new Map<string, number[]>(kinds.map(({ label }) => [label, []]));
  for (let i = 0; i < SAMPLES; i++) {
    for (const { label, task } of i % 2 === 0 ? kinds : [...kinds].reverse())
      latencies.get(label)!.push(await time(task));
  }
  const fortyMs: number[] = [];
  const fortyQuickMs: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(SAMPLES / 4)); i++) {
    fortyMs.push(await time(() => runFlowOnce(forty)));
    fortyQuickMs.push(await time(() => runFlowOnce(fortyQuick)));
  }

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
    addCpuUsed(total.cpu, cpuBefore, cpuAfter);
  };
  for (const { task } of kinds) await throughputPhase("warm-up", task);
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (const { label, task } of round % 2 === 0 ? kinds : [...kinds].reverse()) await throughputPhase(label, task);
  }
  const rateOf = (label: string) => totals[label]!.counted / totals[label]!.seconds;
  const [bareRate, flowRate, quickRate] = [rateOf("bare"), rateOf("flow"), rateOf("quick")];

  // Transactions that wrote: each txid_current() call takes one id itself.
  const writes = async () => Number((await admin.query("SELECT txid_current() AS id")).rows[0].id);
  const commitsPerRun = async (flowId: string, runs: number) => {
    const before = await writes();
    for (let i = 0; i < runs; i++) await runFlowOnce(flowId);
    return (await writes()) - before - 1;
  };
  const threeCommits = (await commitsPerRun(three, 20)) / 20;
  const fortyCommits = (await commitsPerRun(forty, 5)) / 5;
  const threeQuickCommits = (await commitsPerRun(threeQuick, 20)) / 20;
  const fortyQuickCommits = (await commitsPerRun(fortyQuick, 5)) / 5;

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [bare, ours, quick, bareLocal] = kinds.map(({ label }) => sorted(latencies.get(label)!));
  const [chain40, quick40] = [sorted(fortyMs), sorted(fortyQuickMs)];
  const row = (xs: number[], rate?: number) => ({
    "p50 ms": percentile(xs, 50).toFixed(1),
    "p95 ms": percentile(xs, 95).toFixed(1),
    "runs/s @50": rate === undefined ? "-" : rate.toFixed(1),
  });
  console.log(
    `Run engine vs bare Temporal, one dev server, ${SAMPLES} samples alternated, ${THROUGHPUT_ROUNDS * 2} phases of ${PHASE_SECONDS} s at ${IN_FLIGHT} in flight`,
  );
  console.table({
    "bare workflow, 3 no-op activities": row(bare!, bareRate),
    "3-node flow via the API (regular nodes)": row(ours!, flowRate),
    "3-node flow via the API (quick nodes)": row(quick!, quickRate),
    "bare workflow, 3 no-op local activities": row(bareLocal!, rateOf("bare local")),
    "40-node chain via the API (regular nodes)": row(chain40),
    "40-node chain via the API (quick nodes)": row(quick40),
  });
  console.log("CPU ms per run during the throughput phases, per process:");
  console.table(
    Object.fromEntries(
      kinds.map(({ label }) => {
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
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(`p50 latency ratio (flow / bare): ${(p50(ours!) / p50(bare!)).toFixed(2)} (target <= 1.25)`);
  console.log(`throughput ratio (flow / bare): ${(flowRate / bareRate).toFixed(2)} (target >= 0.8)`);
  console.log(`quick nodes: p50 latency ratio (quick / bare): ${(p50(quick!) / p50(bare!)).toFixed(2)} (target < 1)`);
  console.log(`quick nodes: throughput ratio (quick / bare): ${(quickRate / bareRate).toFixed(2)} (target > 1)`);
  console.log(`runs/s per phase, in order: ${phaseRates.slice(kinds.length).join(", ")}`);
  console.log(
    `overhead per node (40-chain vs 3-chain p50): regular ${((p50(chain40) - p50(ours!)) / 37).toFixed(1)} ms, quick ${((p50(quick40) - p50(quick!)) / 37).toFixed(1)} ms (goal <= 3)`,
  );
  console.log(
    `database commits per run: 3 nodes ${threeCommits.toFixed(1)} (target <= 8), 40 nodes ${fortyCommits.toFixed(1)} (target <= 82); quick: 3 nodes ${threeQuickCommits.toFixed(1)}, 40 nodes ${fortyQuickCommits.toFixed(1)}`,
  );
} finally {
  await admin.end();
  await service.close();
}
