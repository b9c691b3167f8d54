// npm run bench:flow-control: what flow control costs, and whether one workspace's flood starves
// another. The service runs as deployed (API and worker processes of their own, npm start's
// Temporal dev server settings: fairness on, one partition); this process only generates load.
//  - latency p50/p95, one run at a time, of a 3-node flow (quick nodes) without flow control and
//    of the same flow with `concurrency: {limit: 5, key: "{{ input.customer }}"}` (slots free):
//    samples alternate between the two, forwards then backwards;
//  - CPU per run of both, over sequential phases in ABBA order (the machine drifts by a third
//    over minutes; ABBA cancels a steady drift), summed over the service's processes;
//  - fairness: workspace B's 20 runs alone (quiet), then the same 20 started right after
//    workspace A started 1,000 (flooded). Each run's time is from its start's answer to its end.
import { parseArgs } from "node:util";
import { newUserSchema } from "../core/users/users.schema.js";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { createPrismaClient } from "../lib/db.js";
import { loginApiClient } from "./helpers/api-client.js";
import { percentile } from "./helpers/database.js";
import { addCpuUsed, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "100" },
    phase: { type: "string", default: "60" },
    rounds: { type: "string", default: "4" },
    flood: { type: "string", default: "1000" },
    others: { type: "string", default: "20" },
  },
});
const SAMPLES = Math.min(Math.max(Number(values.samples) || 100, 10), 1000);
/** Runs in one CPU phase. */
const PHASE_RUNS = Math.min(Math.max(Number(values.phase) || 60, 10), 1000);
/** CPU phases of each kind (ABBA order). */
const ROUNDS = Math.min(Math.max(Number(values.rounds) || 4, 1), 50);
const FLOOD = Math.min(Math.max(Number(values.flood) || 1000, 10), 5000);
const OTHERS = Math.min(Math.max(Number(values.others) || 20, 1), 200);
/** Starts in flight at once while flooding (the API's request rate, not the runs, is bounded). */
const START_CONCURRENCY = 20;

const service = await startServiceProcesses();
const { client, call: api } = service;

try {
  const nodes = [
    { id: "start", type: "manual" },
    { id: "a", type: "set", config: { fields: { a: 1 }, keep_input: true } },
    { id: "b", type: "set", config: { fields: { b: 2 }, keep_input: true } },
  ];
  const edges = [
    { from: "start", to: "a" },
    { from: "a", to: "b" },
  ];
  const created = async (call: typeof api, name: string, definition: object) =>
    (await call("POST", "/api/flows", { name, definition })).id as string;
  const plain = await created(api, "plain", { nodes, edges });
  const keyed = await created(api, "keyed", {
    concurrency: { limit: 5, key: "{{ input.customer }}" },
    nodes,
    edges,
  });
  let customer = 0;
  const kinds = [
    { label: "no flow control", task: () => service.runFlow(plain, { customer: `c${customer++ % 50}` }) },
    { label: "concurrency key", task: () => service.runFlow(keyed, { customer: `c${customer++ % 50}` }) },
  ];
  const time = async (task: () => Promise<unknown>) => {
    const t = performance.now();
    await task();
    return performance.now() - t;
  };

  for (let i = 0; i < 10; i++) for (const { task } of kinds) await task();
  const latencies = new Map<string, number[]>(kinds.map(({ label }) => [label, []]));
  for (let i = 0; i < SAMPLES; i++) {
    for (const { label, task } of i % 2 === 0 ? kinds : [...kinds].reverse())
      latencies.get(label)!.push(await time(task));
  }

  const cpu = new Map<string, { runs: number; used: Record<string, number> }>(
    kinds.map(({ label }) => [label, { runs: 0, used: {} }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const { label, task } of round % 2 === 0 ? kinds : [...kinds].reverse()) {
      const before = service.cpu();
      for (let i = 0; i < PHASE_RUNS; i++) await task();
      const entry = cpu.get(label)!;
      entry.runs += PHASE_RUNS;
      addCpuUsed(entry.used, before, service.cpu());
    }
  }

  // Workspace B: a second account of its own, running the plain flow.
  const other = newUserSchema.parse({
    email: "bench-b@example.com",
    password: "bench-password-2",
    name: "Other",
    workspace: "Other",
  });
  const prisma = createPrismaClient(service.databaseUrl, { maxConnections: 1 });
  try {
    await createUserWithWorkspace(prisma, other, { iterations: 100_000 });
  } finally {
    await prisma.$disconnect();
  }
  const b = await loginApiClient(service.base, other, client);
  const bFlow = await created(b.call, "other's", { nodes, edges });
  /** B's runs started together; each one's time from its start's answer to its end, and the last end. */
  const othersRun = async () => {
    const t0 = performance.now();
    const each = await Promise.all(
      Array.from({ length: OTHERS }, async () => {
        const started = await b.call("POST", `/api/workflows/${bFlow}/run`, { input: { n: 1 } });
        const t = performance.now();
        await client.workflow.getHandle(started.run_id as string).result();
        return performance.now() - t;
      }),
    );
    return { each: each.sort((x, y) => x - y), all: performance.now() - t0 };
  };
  const quiet = await othersRun();

  // A floods: FLOOD starts (START_CONCURRENCY requests at a time), then B's runs start at once.
  // Each of A's runs is awaited as it starts: how many had ended is read the moment B's all have.
  const aEnds: Array<Promise<unknown>> = [];
  let aEnded = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: START_CONCURRENCY }, async () => {
      while (next < FLOOD) {
        next++;
        const started = await api("POST", `/api/workflows/${plain}/run`, { input: { n: next } });
        aEnds.push(
          client.workflow
            .getHandle(started.run_id as string)
            .result()
            .then(() => aEnded++),
        );
      }
    }),
  );
  const floodStarted = performance.now();
  const flooded = await othersRun();
  const aEndedBeforeB = aEnded;
  await Promise.all(aEnds);
  const aDrained = (performance.now() - floodStarted) / 1000;
  b.close();

  const sorted = (label: string) => [...latencies.get(label)!].sort((x, y) => x - y);
  const [plainMs, keyedMs] = kinds.map(({ label }) => sorted(label));
  const perRun = (label: string) => {
    const { runs, used } = cpu.get(label)!;
    return Object.fromEntries(Object.entries(used).map(([part, seconds]) => [part, (seconds * 1000) / runs]));
  };
  const total = (label: string) => Object.values(perRun(label)).reduce((x, y) => x + y, 0);
  console.log(
    `Flow control on one dev server: ${SAMPLES} latency samples alternated, ${ROUNDS * 2} CPU phases of ${PHASE_RUNS} runs`,
  );
  console.table(
    Object.fromEntries(
      kinds.map(({ label }, i) => {
        const ms = [plainMs, keyedMs][i]!;
        return [
          label,
          {
            "p50 ms": percentile(ms, 50).toFixed(1),
            "p95 ms": percentile(ms, 95).toFixed(1),
            "CPU ms/run": total(label).toFixed(1),
          },
        ];
      }),
    ),
  );
  console.log("CPU ms per run, per process:");
  console.table(
    Object.fromEntries(
      kinds.map(({ label }) => [
        label,
        Object.fromEntries(Object.entries(perRun(label)).map(([part, ms]) => [part, ms.toFixed(2)])),
      ]),
    ),
  );
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(
    `concurrency key: +${(p50(keyedMs!) - p50(plainMs!)).toFixed(1)} ms p50 (target <= +2), +${(total("concurrency key") - total("no flow control")).toFixed(1)} ms CPU per run (target <= +1.5)`,
  );
  const fmt = (run: { each: number[]; all: number }) =>
    `p50 ${p50(run.each).toFixed(0)} ms, slowest ${run.each.at(-1)!.toFixed(0)} ms, all ended in ${run.all.toFixed(0)} ms`;
  console.log(`fairness: workspace B's ${OTHERS} runs alone: ${fmt(quiet)}`);
  console.log(`fairness: the same after workspace A started ${FLOOD}: ${fmt(flooded)}`);
  console.log(
    `fairness: B's slowest run flooded / alone ${(flooded.each.at(-1)! / quiet.each.at(-1)!).toFixed(2)}, all of B ${(flooded.all / quiet.all).toFixed(2)} (target <= 3); ${aEndedBeforeB} of A's ${FLOOD} had ended when B's last did, all of A's ended ${aDrained.toFixed(1)} s after the flood's last start`,
  );
} finally {
  await service.close();
}
