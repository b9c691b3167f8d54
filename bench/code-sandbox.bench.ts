// npm run bench:sandbox: a hostile neighbour against ordinary runs on one worker (issues 29, 39).
// The API (with its in-process worker) and the worker run as npm start runs them (processes of
// their own); one workspace runs an ordinary flow (manual → set → delay → code of 200 ms →
// transform → log), another runs code that loops forever (`for (;;) {}`), then transforms whose
// JSONata recurses forever (`($f := function($n){ $f($n+1) }; $f(0))`), each with a 10 s limit.
//  - quiet: RUNS ordinary runs at once, alone: the time until the last one ends
//  - code loops, recursing transforms: the same with LOOPS looping runs, then TRANSFORMS
//    recursing runs started just before them, as the ratio to quiet (the issues' goal: every
//    ordinary run succeeds, within 1.5 times the quiet duration)
//  - what the neighbour could not cause: ordinary runs failed, node attempts beyond the first
//    (a retry), activity timeouts in Temporal's histories (heartbeat or other); the neighbour's own
//    outcome (each fails once at its time limit: runs unfinished, missing, doubled, mis-recorded);
//    the API's /healthz and the worker's /metrics answer times meanwhile (goal: /healthz within
//    200 ms while the transforms recurse)
import { parseArgs } from "node:util";
import { ApplicationFailure } from "@temporalio/common";
import { WorkflowFailedError, type Client } from "@temporalio/client";
import { RUN_FAILED_ERROR } from "../core/contracts/run-flow.js";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { createPrismaClient } from "../lib/db.js";
import { freePort } from "../scripts/infra/process.js";
import { pollLatency, recursingTransformFlow, tallyFailingRuns } from "../test/helpers/chaos.js";
import { loginApiClient, type ApiClient } from "./helpers/api-client.js";
import { median } from "./helpers/database.js";
import { startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    loops: { type: "string", default: "4" },
    transforms: { type: "string", default: "3" },
    delay: { type: "string", default: "6s" },
  },
});
const RUNS = Math.min(Math.max(Number(values.runs) || 10, 1), 100);
const LOOPS = Math.min(Math.max(Number(values.loops) || 4, 0), 20);
const TRANSFORMS = Math.min(Math.max(Number(values.transforms) || 3, 0), 20);
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
  const result = (await client.workflow
    .getHandle(id)
    .result()
    .catch((error: unknown) => {
      // A failed run fails its workflow, with the run's result as the failure's details.
      const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === RUN_FAILED_ERROR) return cause.details?.[0];
      throw error;
    })) as Omit<Ended, "id">;
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
  const hostile: Caller = neighbour;
  const ordinary = (await service.call("POST", "/api/flows", { name: "ordinary", definition: ordinaryFlow }))
    .id as string;
  const looping = (await hostile.call("POST", "/api/flows", { name: "loop", definition: loopFlow })).id as string;
  const recursing = (
    await hostile.call("POST", "/api/flows", { name: "recursion", definition: recursingTransformFlow(LOOP_LIMIT_MS) })
  ).id as string;

  // Warm-up: the sandbox threads and processes start and the code paths are compiled.
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

  /** A batch of ordinary runs beside `count` runs of the neighbour's `flowId`, started just before. */
  const phase = async (flowId: string, count: number) => {
    const metrics = pollLatency(`http://127.0.0.1:${metricsPort}/metrics`, 250);
    const healthz = pollLatency(`${service.base}/healthz`, 100);
    const neighbours = Promise.all(Array.from({ length: count }, () => runToEnd(client, hostile, flowId, {})));
    // Awaited below: a failure then reaches the clean-up, instead of ending the process unhandled now.
    neighbours.catch(() => undefined);
    // The neighbour's runs are scheduled first: they hold the sandbox while the ordinary runs need it.
    if (count > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    const ran = await batch();
    const neighboursEnded = await neighbours;
    return { ...ran, neighbours: neighboursEnded, metrics: await metrics(), healthz: await healthz() };
  };

  const quiet = await phase(ordinary, 0);
  const loops = await phase(looping, LOOPS);
  const transforms = await phase(recursing, TRANSFORMS);

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
  const row = (ran: Awaited<ReturnType<typeof phase>>) => ({
    "all ended": seconds(ran.ms),
    "run p50": seconds(median(runMs(ran.ended))),
    succeeded: `${ok(ran.ended)}/${RUNS}`,
    "/ quiet": (ran.ms / quiet.ms).toFixed(2),
    "/healthz p50": `${Math.round(median(ran.healthz.times))} ms`,
    "/healthz max": `${Math.round(ran.healthz.max)} ms`,
    "/metrics max": `${Math.round(ran.metrics.max)} ms`,
  });

  console.log(`\nOrdinary flow: manual → set → delay ${values.delay} → code (200 ms) → transform → log`);
  console.log(
    `${RUNS} ordinary runs at once; in another workspace, ${LOOPS} runs of for (;;) {}, then ${TRANSFORMS} ` +
      `transforms recursing forever (${LOOP_LIMIT_MS} ms limits)\n`,
  );
  console.table({ quiet: row(quiet), "code loops": row(loops), "recursing transforms": row(transforms) });
  const database = createPrismaClient(service.databaseUrl, { maxConnections: 1 });
  try {
    for (const [name, ran, subject] of [
      ["code loops", loops, "code"],
      ["recursing transforms", transforms, "expression"],
    ] as const) {
      const ordinaryTally = await tally(owner, ran.ended);
      const neighbourTally = await tallyFailingRuns(
        database,
        ran.neighbours.map((run) => run.id),
        "spin",
      );
      const timeLimited = ran.neighbours.filter(
        (run) => run.error?.message === `The ${subject} exceeded its time limit of ${LOOP_LIMIT_MS} ms`,
      ).length;
      console.log(
        `${name}: ordinary runs ${ordinaryTally.repeated} node attempts beyond the first, ` +
          `${ordinaryTally.timeouts} activity timeouts, /healthz ${ran.healthz.failures} failed; the neighbour's ` +
          `${neighbourTally.runs} runs: ${timeLimited} failed at their time limit, unfinished ` +
          `${neighbourTally.unfinished.length}, missing ${neighbourTally.missing.length}, doubled ` +
          `${neighbourTally.doubled.length}, mis-recorded ${neighbourTally.misrecorded.length}`,
      );
    }
  } finally {
    await database.$disconnect();
  }
  const within = (ran: typeof quiet) => ok(ran.ended) === RUNS && ran.ms / quiet.ms <= 1.5;
  console.log(
    `goals: every ordinary run succeeds within 1.5 × quiet (code loops: ${within(loops) ? "met" : "NOT met"}, ` +
      `recursing transforms: ${within(transforms) ? "met" : "NOT met"}); /healthz within 200 ms while the ` +
      `transforms recurse: ${transforms.healthz.max <= 200 ? "met" : "NOT met"}`,
  );
} finally {
  neighbour?.close();
  await service.close();
}
