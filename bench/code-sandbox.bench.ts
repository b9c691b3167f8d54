// npm run bench:sandbox: a hostile neighbour against ordinary runs on one worker (issue 29).
// The API and the worker run as npm start runs them (processes of their own); one workspace runs
// an ordinary flow (manual → set → delay → code of 200 ms → transform → log), another runs code
// that loops forever (`for (;;) {}`, time_limit_ms 10000).
//  - quiet: RUNS ordinary runs at once, alone: the time until the last one ends
//  - hostile: the same with LOOPS looping runs started just before them, as the ratio to quiet
//    (the goal: every ordinary run succeeds, within 1.5 times the quiet duration)
//  - what the neighbour could not cause: ordinary runs failed, node attempts beyond the first
//    (a retry), activity timeouts in Temporal's histories (heartbeat or other); the loops' own
//    outcome (each fails once at its time limit); and the worker's /metrics answer times meanwhile
import { parseArgs } from "node:util";
import type { Client } from "@temporalio/client";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { createPrismaClient } from "../lib/db.js";
import { freePort } from "../scripts/infra/process.js";
import { loginApiClient, type ApiClient } from "./helpers/api-client.js";
import { median } from "./helpers/database.js";
import { startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    loops: { type: "string", default: "4" },
    delay: { type: "string", default: "6s" },
  },
});
const RUNS = Math.min(Math.max(Number(values.runs) || 10, 1), 100);
const LOOPS = Math.min(Math.max(Number(values.loops) || 4, 0), 20);
const LOOP_LIMIT_MS = 10_000;

const ordinaryFlow = {
  nodes: [
    { id: "start", type: "manual" },
    { id: "prepare", type: "set", config: { fields: { n: "{{ input.n }}" } } },
    { id: "wait", type: "delay", config: { duration: values.delay } },
    {
      id: "compute",
      type: "code",
      config: { code: "const end = Date.now() + 200; while (Date.now() < end); return { n: input.n * 2 };" },
    },
    { id: "shape", type: "transform", config: { expression: '{ "doubled": n }' } },
    { id: "report", type: "log", config: { message: "doubled {{ input.doubled }}" } },
  ],
  edges: [
    { from: "start", to: "prepare" },
    { from: "prepare", to: "wait" },
    { from: "wait", to: "compute" },
    { from: "compute", to: "shape" },
    { from: "shape", to: "report" },
  ],
};
const loopFlow = {
  nodes: [
    { id: "start", type: "manual" },
    { id: "spin", type: "code", config: { code: "for (;;) {}", time_limit_ms: LOOP_LIMIT_MS } },
  ],
  edges: [{ from: "start", to: "spin" }],
};

const metricsPort = await freePort();
const service = await startServiceProcesses({ env: { WORKER_METRICS_PORT: String(metricsPort) } });
const neighbourUser = { email: "neighbour@example.com", password: "bench-password-1", name: "N", workspace: "N" };
let neighbour: ApiClient | undefined;

type Ended = { id: string; status: string; error?: { message?: string } | null };
/** A logged-in user's API calls. */
type Caller = Pick<ApiClient, "call">;

/** Starts a run through `api` and waits for its workflow to end, whatever its status. */
async function runToEnd(client: Client, api: Caller, flowId: string, input: object) {
  const started = await api.call("POST", `/api/workflows/${flowId}/run`, { input });
  const id = started.run_id as string;
  const result = (await client.workflow.getHandle(id).result()) as Omit<Ended, "id">;
  return { id, ...result };
}

/** Node attempts beyond the first, and activity timeouts, in a run's steps and history. */
async function retriesOf(api: Caller, client: Client, runId: string) {
  const { items } = (await api.call("GET", `/api/runs/${runId}/steps`)) as { items: Array<{ attempt: number }> };
  const { events } = await client.workflow.getHandle(runId).fetchHistory();
  return {
    repeated: items.filter((step) => step.attempt > 1).length,
    timeouts: events!.filter((event) => event.activityTaskTimedOutEventAttributes).length,
  };
}

/** Polls the worker's /metrics every 250 ms until stopped; returns each answer's time in ms. */
function watchMetrics() {
  const times: number[] = [];
  let polling = true;
  const done = (async () => {
    while (polling) {
      const t = performance.now();
      await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((res) => res.text());
      times.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return async () => {
    polling = false;
    await done;
    return times;
  };
}

try {
  const prisma = createPrismaClient(service.databaseUrl, { maxConnections: 1 });
  try {
    await createUserWithWorkspace(prisma, neighbourUser, { iterations: 100_000 });
  } finally {
    await prisma.$disconnect();
  }
  neighbour = await loginApiClient(service.base, neighbourUser, service.client);
  const { client } = service;
  const owner: Caller = service;
  const ordinary = (await service.call("POST", "/api/flows", { name: "ordinary", definition: ordinaryFlow }))
    .id as string;
  const looping = (await neighbour.call("POST", "/api/flows", { name: "loop", definition: loopFlow })).id as string;

  // Warm-up: the sandbox threads start and the code paths are compiled.
  await Promise.all([1, 2].map((n) => runToEnd(client, owner, ordinary, { n })));

  const batch = async () => {
    const t = performance.now();
    const ended = await Promise.all(
      Array.from({ length: RUNS }, (_, n) =>
        runToEnd(client, owner, ordinary, { n }).then((run) => ({ ...run, ms: performance.now() - t })),
      ),
    );
    return { ms: performance.now() - t, ended };
  };

  const quietMetrics = watchMetrics();
  const quiet = await batch();
  const quietMetricsMs = await quietMetrics();

  const hostileMetrics = watchMetrics();
  const loops = Array.from({ length: LOOPS }, () => runToEnd(client, neighbour!, looping, {}));
  // The loops are scheduled first: they hold the sandbox while the ordinary runs need it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const hostile = await batch();
  const hostileMetricsMs = await hostileMetrics();
  const loopsEnded = await Promise.all(loops);

  const tally = async (api: Caller, runs: Ended[]) => {
    let repeated = 0;
    let timeouts = 0;
    for (const run of runs) {
      const found = await retriesOf(api, client, run.id);
      repeated += found.repeated;
      timeouts += found.timeouts;
    }
    return { repeated, timeouts };
  };
  const ok = (runs: Ended[]) => runs.filter((run) => run.status === "success").length;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const runMs = (runs: Array<{ ms: number }>) => runs.map((run) => run.ms);
  const ratio = hostile.ms / quiet.ms;
  const hostileTally = await tally(owner, hostile.ended);
  const loopTally = await tally(neighbour, loopsEnded);
  const timeLimited = loopsEnded.filter(
    (run) =>
      run.status === "failed" && run.error?.message === `The code exceeded its time limit of ${LOOP_LIMIT_MS} ms`,
  ).length;

  console.log(`\nOrdinary flow: manual → set → delay ${values.delay} → code (200 ms) → transform → log`);
  console.log(
    `${RUNS} ordinary runs at once; hostile: ${LOOPS} runs of for (;;) {} (${LOOP_LIMIT_MS} ms) in another workspace\n`,
  );
  console.table({
    quiet: {
      "all ended": seconds(quiet.ms),
      "run p50": seconds(median(runMs(quiet.ended))),
      succeeded: `${ok(quiet.ended)}/${RUNS}`,
      "/metrics max": `${Math.round(Math.max(...quietMetricsMs))} ms`,
    },
    hostile: {
      "all ended": seconds(hostile.ms),
      "run p50": seconds(median(runMs(hostile.ended))),
      succeeded: `${ok(hostile.ended)}/${RUNS}`,
      "/metrics max": `${Math.round(Math.max(...hostileMetricsMs))} ms`,
    },
  });
  console.log(`hostile / quiet: ${ratio.toFixed(2)} (goal: at most 1.5, with ${RUNS}/${RUNS} succeeded)`);
  console.log(
    `ordinary runs under the neighbour: ${hostileTally.repeated} node attempts beyond the first, ` +
      `${hostileTally.timeouts} activity timeouts`,
  );
  console.log(
    `looping runs: ${timeLimited}/${LOOPS} failed at their time limit; ${loopTally.repeated} attempts beyond the ` +
      `first, ${loopTally.timeouts} activity timeouts`,
  );
  const met = ok(hostile.ended) === RUNS && ratio <= 1.5;
  console.log(met ? "goal met" : "goal NOT met");
} finally {
  neighbour?.close();
  await service.close();
}
