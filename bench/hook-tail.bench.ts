// npm run bench:tail: where the slowest sync hook requests under load spend their time. The
// service as npm start runs it (API process with its in-process worker, a worker process,
// Temporal persisting to a file, PostgreSQL); --warmup requests (not measured), then --total
// requests to a hook -> set -> set flow with --inflight in flight. Prints p50/p95/p99/max, then
// for the slowest --show requests a timeline of their run: the request, the run record, each
// event of the workflow's history (workflow tasks with where they ran, local activity markers)
// and the record's end, in ms from the request.
// Then where the API process's CPU went by part and the SQL per run (bench/helpers/run-costs.ts;
// --no-profiler: by thread only, without the profiler; --no-costs: neither).
// What it shows decides what to change; it asserts nothing.
import http from "node:http";
import { parseArgs } from "node:util";
import proto from "@temporalio/proto";
import pg from "pg";
import { percentile } from "./helpers/database.js";
import { COSTS_OPTIONS, costsHeading, costsMode } from "./helpers/run-costs.js";
import { addCpuUsed, cpuPerRequestText, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    total: { type: "string", default: "1500" },
    inflight: { type: "string", default: "50" },
    warmup: { type: "string", default: "1000" },
    show: { type: "string", default: "5" },
    ...COSTS_OPTIONS,
  },
});
const bounded = (value: string | undefined, fallback: number, max: number) =>
  Math.min(Math.max(Number(value) || fallback, 1), max);
const TOTAL = bounded(values.total, 1500, 20_000);
const IN_FLIGHT = bounded(values.inflight, 50, 500);
// Requests at IN_FLIGHT before the measured ones: V8 compiles for the first ~2,000 (bench:peer).
const WARMUP = bounded(values.warmup, 1000, 20_000);
const SHOW = bounded(values.show, 5, 50);

const service = await startServiceProcesses({
  env: { HOOK_RATE_LIMIT: "100000000" },
  costs: costsMode(values),
});
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, timeout: 10_000 });
const BODY = JSON.stringify({ a: "hello" });

interface Sample {
  sentAt: number;
  ms: number;
  status: number;
  runId?: string;
}

function post(url: string): Promise<Sample> {
  const sentAt = Date.now();
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { "Content-Type": "application/json", "Content-Length": BODY.length } },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({
            sentAt,
            ms: performance.now() - started,
            status: res.statusCode ?? 0,
            runId: res.headers["x-run-id"] as string | undefined,
          }),
        );
      },
    );
    req.on("error", () => resolve({ sentAt, ms: performance.now() - started, status: 0 }));
    req.end(BODY);
  });
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const { EventType } = proto.temporal.api.enums.v1;

let costs: string | undefined;
try {
  const flow = await service.call("POST", "/api/flows", {
    name: "tail",
    definition: {
      nodes: [
        { id: "hook", type: "http_trigger", config: { mode: "sync", response: "output" } },
        { id: "x", type: "set", config: { fields: { x: "{{ input.body.a }}" } } },
        { id: "y", type: "set", config: { fields: { y: "{{ input.x }}" } } },
      ],
      edges: [
        { from: "hook", to: "x" },
        { from: "x", to: "y" },
      ],
    },
  });
  const url = `${service.base}${(flow.hook as { path: string }).path}`;
  let warming = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (warming++ < WARMUP) await post(url);
    }),
  );

  const samples: Sample[] = [];
  let next = 0;
  const costColumn = await service.costColumn?.(`${IN_FLIGHT} in flight`);
  await costColumn?.begin();
  const cpuBefore = service.cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < TOTAL) samples.push(await post(url));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = service.cpu();
  await costColumn?.end(TOTAL);
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const failed = samples.filter((sample) => sample.status !== 200).length;
  console.log(
    `processes: ${Object.entries(service.pids)
      .map(([name, pid]) => `${name} ${pid}`)
      .join(", ")}`,
  );
  console.log(
    `bench:tail: ${TOTAL} sync hook requests (hook -> set -> set), ${IN_FLIGHT} in flight: ` +
      `${(TOTAL / seconds).toFixed(1)} req/s, p50 ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, ` +
      `p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1)!)}; ${failed} not 200`,
  );
  const cpuUsed: Record<string, number> = {};
  addCpuUsed(cpuUsed, cpuBefore, cpuAfter);
  console.log(`CPU per request: ${cpuPerRequestText(cpuUsed, TOTAL)}`);

  const db = new pg.Client({ connectionString: service.databaseUrl });
  await db.connect();
  try {
    const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, SHOW);
    for (const sample of slowest) {
      if (!sample.runId) {
        console.log(`\n${ms(sample.ms)}: status ${sample.status}, no run id`);
        continue;
      }
      const at = (time: Date | string | number) => `+${(new Date(time).getTime() - sample.sentAt).toFixed(0)}`;
      const { rows } = await db.query<{ started_at: Date; finished_at: Date | null }>(
        "SELECT started_at, finished_at FROM runs WHERE id = $1",
        [sample.runId],
      );
      const lines = [`request sent +0`, `run recorded ${rows[0] ? at(rows[0].started_at) : "?"}`];
      const events = (await service.client.workflow.getHandle(sample.runId).fetchHistory()).events ?? [];
      for (const event of events) {
        const time = event.eventTime?.seconds
          ? Number(event.eventTime.seconds) * 1000 + Math.floor((event.eventTime.nanos ?? 0) / 1e6)
          : undefined;
        const type = (EventType[event.eventType ?? 0] ?? String(event.eventType))
          .replace(/^EVENT_TYPE_/, "")
          .toLowerCase();
        const where = event.workflowTaskStartedEventAttributes?.identity
          ? ` by ${event.workflowTaskStartedEventAttributes.identity}`
          : event.workflowTaskScheduledEventAttributes?.taskQueue?.name
            ? ` on ${event.workflowTaskScheduledEventAttributes.taskQueue.name.startsWith("bench-") ? "the task queue" : "a sticky queue"}`
            : "";
        lines.push(`${type}${where} ${time === undefined ? "?" : at(time)}`);
      }
      lines.push(
        `run ended ${rows[0]?.finished_at ? at(rows[0].finished_at) : "?"}`,
        `answered +${sample.ms.toFixed(0)}`,
      );
      console.log(`\n${ms(sample.ms)} (run ${sample.runId}):\n  ${lines.join("\n  ")}`);
    }
  } finally {
    await db.end();
  }
} finally {
  agent.destroy();
  costs = await service.close();
}
if (costs) console.log(`${costsHeading(costsMode(values), `over the ${TOTAL} requests`)}\n${costs}`);
