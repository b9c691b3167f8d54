// npm run bench:chaos: the service as npm start runs it (an API process with its in-process
// worker, a worker process, a Temporal dev server persisting to a file, PostgreSQL), each phase a
// burst of keyed starts of a mixed flow (quick nodes, an http_request to a loopback receiver that
// honours idempotency keys, a delay) by clients that repeat a refused request with the same key,
// met by one fault: none, the worker SIGKILLed every few seconds, the API SIGKILLed, Temporal
// SIGKILLed, PostgreSQL stopped for a while. Prints per fault: runs started, finished, lost,
// doubled steps, mis-recorded runs, burned keys, duplicate effects, and the recovery time (from
// the fault's start until a new run of a probe flow started and ended successfully).
// Goal: 0 lost, doubled, mis-recorded or burned.
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { createPrismaClient } from "../lib/db.js";
import { freePort, sleep } from "../scripts/infra/process.js";
import {
  callWithKey,
  faultsOf,
  inLanes,
  killWorkerRepeatedly,
  mixedFlow,
  runningCount,
  startIdempotentReceiver,
  tallyChaos,
  workerProcesses,
  type ChaosTally,
} from "../test/helpers/chaos.js";
import { startPrivatePostgres, startPrivateTemporal } from "../test/helpers/private-infra.js";
import { cleanEnv, spawnEntry, type Spawned } from "../test/helpers/processes.js";
import { benchUser } from "./helpers/fixtures.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "100" },
    "outage-seconds": { type: "string", default: "45" },
    "worker-kills": { type: "string", default: "5" },
    faults: { type: "string", default: "none,worker,api,temporal,postgres" },
  },
});
const bounded = (value: string | undefined, fallback: number, max: number) =>
  Math.min(Math.max(Number(value) || fallback, 1), max);
const RUNS = bounded(values.runs, 100, 1000);
const OUTAGE_MS = bounded(values["outage-seconds"], 45, 300) * 1000;
const WORKER_KILLS = bounded(values["worker-kills"], 5, 50);
const FAULTS = values.faults.split(",").map((fault) => fault.trim());
const CLIENTS = 8;
const PHASE_MS = 10 * 60_000;

const postgres = await startPrivatePostgres();
const temporal = await startPrivateTemporal();
const prisma = createPrismaClient(postgres.url, { maxConnections: 4 });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = cleanEnv({
  DATABASE_URL: postgres.url,
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_TASK_QUEUE: `bench-chaos-${randomUUID()}`,
  // "worker started" and "API listening" are how a new process is known to be up.
  LOG_LEVEL: "info",
  EGRESS_ALLOWLIST: "127.0.0.1",
  WEBHOOK_DISPATCHER: "false",
  PASSWORD_HASH_ITERATIONS: "100000",
});
const workers = workerProcesses(env);
let apiProcess: Spawned | undefined;
async function startApi() {
  apiProcess = spawnEntry("api/server.ts", [], { ...env, PORT: String(port), API_WORKER: "true" });
  await apiProcess.waitForOutput(/API listening/, 120_000);
}
async function killApi() {
  apiProcess?.child.kill("SIGKILL");
  await apiProcess?.exited;
}

/** An API call as the bench user; throws on an error status. */
let cookie = "";
async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Cookie: cookie, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { body: JSON.parse(text) as Record<string, unknown>, cookies: res.headers.getSetCookie() };
}

/**
 * Time from `since` until a probe (a one-node flow) started after it ends in success: starts
 * one probe after another, each waited for, until one passes.
 */
async function recoveryMs(probeFlowId: string, since: number): Promise<number> {
  const deadline = Date.now() + PHASE_MS;
  while (Date.now() < deadline) {
    const started = await callWithKey(
      `${base}/api/workflows/${probeFlowId}/run`,
      `probe-${randomUUID()}`,
      {},
      {
        headers: { Cookie: cookie },
        attempts: 1,
      },
    ).catch(() => undefined);
    const runId = started?.accepted ? [...started.runIds][0] : undefined;
    for (let i = 0; runId && i < 120; i++) {
      const run = await call("GET", `/api/runs/${runId}`).catch(() => undefined);
      const status = (run?.body.run as { status?: string } | undefined)?.status;
      if (status === "success") return Date.now() - since;
      if (status && status !== "running") break;
      await sleep(250);
    }
    await sleep(250);
  }
  return NaN;
}

interface Phase {
  fault: string;
  tally: ChaosTally;
  started: number;
  burnedKeys: number;
  refusals: number;
  recoveryMs: number;
  seconds: number;
}

/** RUNS keyed starts by CLIENTS clients; `fault` strikes once a fifth of them are accepted. */
async function phase(fault: string, probeFlowId: string): Promise<Phase> {
  const receiver = await startIdempotentReceiver();
  const flow = mixedFlow(receiver.url);
  const flowId = (await call("POST", "/api/flows", { name: `chaos ${fault}`, definition: flow })).body.id as string;
  const keys = Array.from({ length: RUNS }, (_, n) => ({ key: `chaos-${randomUUID()}`, n }));
  const runIdsByKey = new Map<string, Set<string>>();
  let refusals = 0;
  const startedAt = performance.now();
  const clients = inLanes(keys, CLIENTS, async ({ key, n }) => {
    const result = await callWithKey(
      `${base}/api/workflows/${flowId}/run`,
      key,
      { input: { n } },
      {
        headers: { Cookie: cookie },
        attempts: 200,
      },
    );
    runIdsByKey.set(key, result.runIds);
    refusals += result.refusals;
  });
  let failed = false;
  clients.all.catch(() => (failed = true));
  const strikeBy = Date.now() + PHASE_MS;
  while (clients.finished() < RUNS / 5 && !failed && Date.now() < strikeBy) await sleep(50);

  const since = Date.now();
  const recovery = fault === "none" ? Promise.resolve(NaN) : recoveryMs(probeFlowId, since);
  if (fault === "worker") {
    let allStarted = false;
    void clients.all.then(() => (allStarted = true));
    const runIds = () => [...runIdsByKey.values()].flatMap((ids) => [...ids]);
    await killWorkerRepeatedly(workers, {
      aliveMs: () => 3000,
      maxKills: WORKER_KILLS,
      busy: async () => !allStarted || (await runningCount(prisma, runIds())) > 0,
    });
  } else if (fault === "api") {
    await killApi();
    await sleep(1000);
    await startApi();
  } else if (fault === "temporal") {
    await temporal.kill();
    await sleep(5000);
    await temporal.start();
  } else if (fault === "postgres") {
    await postgres.stop();
    await sleep(OUTAGE_MS);
    await postgres.start();
  }
  await clients.all;
  const runIds = [...new Set([...runIdsByKey.values()].flatMap((ids) => [...ids]))];
  const deadline = Date.now() + PHASE_MS;
  while ((await runningCount(prisma, runIds)) > 0 && Date.now() < deadline) await sleep(500);
  const seconds = (performance.now() - startedAt) / 1000;
  const tally = await tallyChaos(prisma, runIds, receiver, flow);
  receiver.close();
  const burnedKeys = keys.filter(({ key }) => (runIdsByKey.get(key)?.size ?? 0) !== 1).length;
  return { fault, tally, started: runIds.length, burnedKeys, refusals, recoveryMs: await recovery, seconds };
}

try {
  await startApi();
  await workers.start();
  await createUserWithWorkspace(prisma, benchUser, { iterations: 100_000 });
  const login = await call("POST", "/api/auth/login", { email: benchUser.email, password: benchUser.password });
  cookie = login.cookies[0]!.split(";")[0]!;
  const probe = {
    nodes: [
      { id: "start", type: "manual" },
      { id: "ok", type: "set", config: { fields: { ok: true } } },
    ],
  };
  const probeFlowId = (
    await call("POST", "/api/flows", { name: "probe", definition: { ...probe, edges: [{ from: "start", to: "ok" }] } })
  ).body.id as string;
  console.log(
    `bench:chaos: ${RUNS} keyed starts per fault of manual -> set -> http_request (loopback) -> set -> delay 1s -> set, ` +
      `${CLIENTS} clients repeating refused requests with their key; API (with its in-process worker), worker, ` +
      `Temporal (file) and PostgreSQL as processes of their own; PostgreSQL outage ${OUTAGE_MS / 1000} s, ` +
      `${WORKER_KILLS} worker kills 3 s apart`,
  );
  const phases: Phase[] = [];
  for (const fault of FAULTS) {
    phases.push(await phase(fault, probeFlowId));
    console.log(`${fault}: done in ${phases.at(-1)!.seconds.toFixed(1)} s`);
  }
  const LABELS: Record<string, string> = {
    none: "no fault",
    worker: `worker SIGKILL x${WORKER_KILLS}`,
    api: "API SIGKILL",
    temporal: "Temporal SIGKILL (5 s down)",
    postgres: `PostgreSQL down ${OUTAGE_MS / 1000} s`,
  };
  console.table(
    Object.fromEntries(
      phases.map(({ fault, tally, started, burnedKeys, refusals, recoveryMs, seconds }) => [
        LABELS[fault] ?? fault,
        {
          "runs started": started,
          finished: tally.runs - tally.unfinished.length,
          lost: RUNS - (tally.runs - tally.unfinished.length),
          "steps doubled": tally.doubled.length,
          "mis-recorded": tally.misrecorded.length,
          "burned keys": burnedKeys,
          "duplicate effects": tally.duplicateEffects.length,
          "5xx / broken answers": refusals,
          "recovery s": Number.isNaN(recoveryMs) ? "-" : (recoveryMs / 1000).toFixed(1),
          "wall s": seconds.toFixed(1),
        },
      ]),
    ),
  );
  for (const { fault, tally } of phases) {
    const faults = Object.entries(faultsOf(tally)).flatMap(([kind, found]: [string, unknown[]]) =>
      found.map((found) => `${kind}: ${typeof found === "string" ? found : JSON.stringify(found)}`),
    );
    if (faults.length > 0) console.log(`${fault}, first faults:\n  ${faults.slice(0, 10).join("\n  ")}`);
  }
} finally {
  await killApi();
  await workers.stopAll();
  await prisma.$disconnect();
  await temporal.close();
  await postgres.close();
}
