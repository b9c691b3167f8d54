// npm run bench:chaos: a burst of runs of a mixed flow (quick nodes, an http_request to a
// loopback receiver that honours idempotency keys, a delay) while the worker process is killed
// with SIGKILL every few seconds (10 times by default) and a new one started; then the same burst
// without kills. Prints runs finished, step rows lost or doubled, calls and duplicate side
// effects, and the slowdown.
// Goal: 0 lost, 0 duplicated.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { createUserWithWorkspace } from "../api/routes/users/users.service.js";
import { parseConfig } from "../lib/config.js";
import { sleep } from "../scripts/infra/process.js";
import { createLogger } from "../lib/logger.js";
import {
  faultsOf,
  killWorkerRepeatedly,
  mixedFlow,
  runningCount,
  startIdempotentReceiver,
  tallyChaos,
  workerProcesses,
  type ChaosTally,
} from "../test/helpers/chaos.js";
import { cleanEnv } from "../test/helpers/processes.js";
import { loginApiClient } from "./helpers/api-client.js";
import { benchDatabase } from "./helpers/database.js";
import { benchTemporal, benchUser } from "./helpers/fixtures.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "500" },
    "kill-every": { type: "string", default: "3" },
    "max-kills": { type: "string", default: "10" },
    "phase-minutes": { type: "string", default: "10" },
  },
});
const RUNS = Math.min(Math.max(Number(values.runs) || 500, 1), 2000);
const KILL_EVERY_MS = Math.min(Math.max(Number(values["kill-every"]) || 3, 1), 60) * 1000;
// Each kill costs the runs in flight their workflow tasks' timeouts and a replay on the next
// worker: killed every 3 s until they ended, 500 runs barely moved (114 ended in 10 min, on a
// busy 2-core machine).
const MAX_KILLS = Math.min(Math.max(Number(values["max-kills"]) || 10, 1), 100);
const PHASE_MS = Math.min(Math.max(Number(values["phase-minutes"]) || 10, 1), 30) * 60_000;
const STARTS_IN_FLIGHT = 16;

const db = await benchDatabase();
const temporalServer = await benchTemporal();
const config = parseConfig({
  DATABASE_URL: db.url,
  TEMPORAL_ADDRESS: temporalServer.address,
  TEMPORAL_TASK_QUEUE: `bench-chaos-${randomUUID()}`,
  LOG_LEVEL: "silent",
  PASSWORD_HASH_ITERATIONS: "100000",
});
const deps = createDeps(config, createLogger(config, "bench"));
const server = createApp(deps).listen(0, "127.0.0.1");
await once(server, "listening");
const client = new Client({ connection: await Connection.connect({ address: temporalServer.address }) });
await createUserWithWorkspace(deps.prisma, benchUser, { iterations: 100_000 });
const api = await loginApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, benchUser, client);
const workers = workerProcesses(
  cleanEnv({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
    // "worker started" is how a new worker is known to be up.
    LOG_LEVEL: "info",
    EGRESS_ALLOWLIST: "127.0.0.1",
    WEBHOOK_DISPATCHER: "false",
  }),
);

interface Phase {
  tally: ChaosTally;
  seconds: number;
  kills: number;
}

/** Starts RUNS runs with a worker up, killing it every KILL_EVERY_MS when `kill`; waits for all to end. */
async function phase(label: string, kill: boolean): Promise<Phase> {
  // A receiver per phase: each counts its own phase's calls.
  const receiver = await startIdempotentReceiver();
  const flow = mixedFlow(receiver.url);
  const flowId = (await api.call("POST", "/api/flows", { name: label, definition: flow })).id as string;
  await workers.start();
  const started = performance.now();
  const deadline = Date.now() + PHASE_MS;
  const runIds: string[] = [];
  let next = 0;
  const starting = Promise.all(
    Array.from({ length: STARTS_IN_FLIGHT }, async () => {
      while (next < RUNS) {
        next++;
        runIds.push((await api.call("POST", `/api/workflows/${flowId}/run`, { input: { n: next } })).run_id as string);
      }
    }),
  );
  let startsDone = false;
  // Done either way: a failed start ends the kills too, and is thrown by the await below.
  const startsSettled = () => (startsDone = true);
  void starting.then(startsSettled, startsSettled);
  const kills = kill
    ? await killWorkerRepeatedly(workers, {
        aliveMs: () => KILL_EVERY_MS,
        maxKills: MAX_KILLS,
        busy: async () => Date.now() < deadline && (!startsDone || (await runningCount(deps.prisma, runIds)) > 0),
      })
    : 0;
  await starting;
  while ((await runningCount(deps.prisma, runIds)) > 0 && Date.now() < deadline) await sleep(250);
  const seconds = (performance.now() - started) / 1000;
  await workers.kill();
  const tally = await tallyChaos(deps.prisma, runIds, receiver, flow);
  receiver.close();
  console.log(
    `${label}: ${runIds.length - tally.unfinished.length}/${runIds.length} finished in ${seconds.toFixed(1)} s`,
  );
  return { tally, seconds, kills };
}

try {
  console.log(
    `bench:chaos: ${RUNS} runs of manual -> set -> http_request (loopback) -> set -> delay 1s -> set, worker killed every ${KILL_EVERY_MS / 1000} s (at most ${MAX_KILLS} kills), then without kills`,
  );
  const chaos = await phase("with kills", true);
  const calm = await phase("without kills", false);
  const row = ({ tally, seconds, kills }: Phase) => ({
    "worker kills": kills,
    "runs finished": `${tally.runs - tally.unfinished.length}/${tally.runs}`,
    "steps lost": tally.missing.length,
    "steps doubled": tally.doubled.length,
    "calls received": tally.calls,
    "calls lost": tally.lostCalls.length,
    "repeated deliveries (same key)": tally.calls - (tally.runs - tally.lostCalls.length),
    "repeats beyond attempts": tally.unexplainedRepeats.length,
    "duplicate side effects": tally.duplicateEffects.length,
    "wall s": seconds.toFixed(1),
  });
  const [withKills, withoutKills] = [row(chaos), row(calm)];
  console.table(
    Object.fromEntries(
      Object.keys(withKills).map((key) => [
        key,
        {
          "with kills": withKills[key as keyof typeof withKills],
          "without kills": withoutKills[key as keyof typeof withoutKills],
        },
      ]),
    ),
  );
  console.log(`slowdown (wall time with kills / without): ${(chaos.seconds / calm.seconds).toFixed(2)}`);
  for (const [label, { tally }] of [
    ["with kills", chaos],
    ["without kills", calm],
  ] as const) {
    const faults = Object.entries(faultsOf(tally)).flatMap(([kind, found]: [string, unknown[]]) =>
      found.map((fault) => `${kind}: ${typeof fault === "string" ? fault : JSON.stringify(fault)}`),
    );
    if (faults.length > 0) console.log(`${label}, first faults:\n  ${faults.slice(0, 10).join("\n  ")}`);
  }
} finally {
  await workers.stopAll();
  api.close();
  server.close();
  await client.connection.close();
  await closeDeps(deps);
  await temporalServer.stop();
  await db.close();
}
