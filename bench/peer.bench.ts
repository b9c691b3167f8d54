// npm run bench:peer: our sync hooks against n8n's webhooks, in the same run, alternating.
// Starts the service as npm start runs it (API and worker processes, a Temporal dev server) and,
// when n8n is installed as ../shared/bench/n8n/README.md describes, n8n in its default mode on the
// same PostgreSQL server (our database is created there too). Without n8n it measures us alone and
// says so. Two flow shapes answer the body {"a": "hello"} with {"y": "hello"}:
//  - chain:  hook -> set x -> set y
//  - branch: hook -> condition (a == "hello") -> set y on "true" | set y = "other" on "false"
// n8n runs each shape twice: as it ships (an execution saved when it ends) and with "save
// execution progress" (each node's result written as it finishes, as our step rows are).
// For each: --warmup requests in flight (not measured), sequential p50/p95 (in alternating
// order), then requests per second and p50/p95/p99 with --inflight requests in flight, in
// alternating phases; our answers that fell back to 202 are counted. Then CPU per request by process, and the Temporal server's work per run, read
// from a run's history. Then, for our throughput phases, where the API process's CPU goes by
// part (our code, the payload codec, Prisma and pg, the Temporal SDK's JavaScript, workflow
// thread and Rust core, V8) and the SQL statements and write transactions per run, from
// PostgreSQL's own counters (bench/helpers/run-costs.ts); the API process runs under
// V8's sampling profiler for it (--no-profiler: by thread only; --no-costs: neither).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { percentile } from "./helpers/database.js";
import { findN8n, N8N_POSTGRES_URL, startN8n, type N8nNode } from "./helpers/n8n.js";
import { COSTS_OPTIONS, costsHeading, costsMode } from "./helpers/run-costs.js";
import { addCpuUsed, cpuPerRequestText, cpuSeconds, startServiceProcesses } from "./helpers/service.js";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "100" },
    seconds: { type: "string", default: "6" },
    rounds: { type: "string", default: "4" },
    inflight: { type: "string", default: "50" },
    warmup: { type: "string", default: "1000" },
    "no-n8n": { type: "boolean", default: false },
    ...COSTS_OPTIONS,
  },
});
const SAMPLES = Math.min(Math.max(Number(values.samples) || 100, 10), 1000);
const PHASE_SECONDS = Math.min(Math.max(Number(values.seconds) || 6, 3), 60);
const RAMP_SECONDS = 1;
const ROUNDS = Math.min(Math.max(Number(values.rounds) || 4, 1), 50);
const IN_FLIGHT = Math.min(Math.max(Number(values.inflight) || 50, 1), 200);
// Requests at IN_FLIGHT per system and shape before anything is measured: V8 was still compiling
// (its helper threads' CPU falling from about half the main thread's to a tenth over the first
// ~2,000 requests), which a short warm-up measured as a cost per request.
const WARMUP = Math.min(Math.max(Number(values.warmup) || 0, 0), 20_000);

const peer = values["no-n8n"] ? { missing: "--no-n8n" } : await findN8n();
if ("missing" in peer) console.log(`n8n: not measured (${peer.missing}); measuring this service alone`);
else if (!process.env.BENCH_DATABASE_URL) {
  // The same PostgreSQL server for both: our database is created next to n8n's.
  const admin = new URL(N8N_POSTGRES_URL);
  admin.pathname = "/postgres";
  process.env.BENCH_DATABASE_URL = admin.toString();
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 5000 });
const BODY = JSON.stringify({ a: "hello" });

type Answer = { status: number; text: string; runId?: string };
function post(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { "Content-Type": "application/json", "Content-Length": BODY.length } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text, runId: res.headers["x-run-id"] as string | undefined }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(BODY);
  });
}

interface System {
  name: string;
  url: string;
  /** Answers counted per kind: ok ({"y":"hello"}), fallback (our 202), error (anything else). */
  tally: { ok: number; fallback: number; error: number };
  lastRunId?: string;
}

async function once(system: System): Promise<number> {
  const started = performance.now();
  const answer = await post(system.url).catch((error: Error) => ({ status: 0, text: error.message }) as Answer);
  const took = performance.now() - started;
  if (answer.status === 200 && answer.text === '{"y":"hello"}') system.tally.ok++;
  else if (answer.status === 202) system.tally.fallback++;
  else {
    system.tally.error++;
    if (system.tally.error <= 3) console.log(`  ${system.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  if (answer.runId) system.lastRunId = answer.runId;
  return took;
}

const service = await startServiceProcesses({
  env: { HOOK_RATE_LIMIT: "100000000" },
  costs: costsMode(values),
});
const n8n =
  "missing" in peer
    ? undefined
    : await startN8n(peer.home).catch(async (error: unknown) => {
        await service.close();
        throw error;
      });

let costs: string | undefined;
try {
  const hookFlow = async (name: string, nodes: object[], edges: object[]) => {
    const flow = await service.call("POST", "/api/flows", {
      name,
      definition: {
        nodes: [{ id: "hook", type: "http_trigger", config: { mode: "sync", response: "output" } }, ...nodes],
        edges,
      },
    });
    return `${service.base}${(flow.hook as { path: string }).path}`;
  };
  const set = (name: string, field: string, value: string): N8nNode => ({
    name,
    type: "n8n-nodes-base.set",
    typeVersion: 3.4,
    parameters: {
      assignments: { assignments: [{ id: randomUUID(), name: field, value, type: "string" }] },
      options: {},
    },
  });

  const shapes = [
    {
      shape: "chain: hook -> set -> set",
      ours: await hookFlow(
        "peer chain",
        [
          { id: "x", type: "set", config: { fields: { x: "{{ input.body.a }}" } } },
          { id: "y", type: "set", config: { fields: { y: "{{ input.x }}" } } },
        ],
        [
          { from: "hook", to: "x" },
          { from: "x", to: "y" },
        ],
      ),
      theirs: (options?: { saveProgress: boolean }) =>
        n8n?.webhookWorkflow(
          "peer chain",
          [set("SetX", "x", "={{ $json.body.a }}"), set("SetY", "y", "={{ $json.x }}")],
          [
            ["Webhook", "SetX"],
            ["SetX", "SetY"],
          ],
          options,
        ),
    },
    {
      shape: "branch: hook -> condition -> set | set",
      ours: await hookFlow(
        "peer branch",
        [
          {
            id: "check",
            type: "condition",
            config: { left: "{{ input.body.a }}", operator: "equals", right: "hello" },
          },
          { id: "yes", type: "set", config: { fields: { y: "{{ input.body.a }}" } } },
          { id: "no", type: "set", config: { fields: { y: "other" } } },
        ],
        [
          { from: "hook", to: "check" },
          { from: "check", to: "yes", branch: "true" },
          { from: "check", to: "no", branch: "false" },
        ],
      ),
      theirs: (options?: { saveProgress: boolean }) =>
        n8n?.webhookWorkflow(
          "peer branch",
          [
            {
              name: "If",
              type: "n8n-nodes-base.if",
              typeVersion: 2.2,
              parameters: {
                conditions: {
                  options: { caseSensitive: true, leftValue: "", typeValidation: "strict", version: 2 },
                  conditions: [
                    {
                      id: randomUUID(),
                      leftValue: "={{ $json.body.a }}",
                      rightValue: "hello",
                      operator: { type: "string", operation: "equals" },
                    },
                  ],
                  combinator: "and",
                },
                options: {},
              },
            },
            set("SetYes", "y", "={{ $json.body.a }}"),
            set("SetNo", "y", "other"),
          ],
          [
            ["Webhook", "If"],
            ["If", "SetYes", 0],
            ["If", "SetNo", 1],
          ],
          options,
        ),
    },
  ];

  const rows: Record<string, Record<string, string>> = {};
  const ratios: string[] = [];
  const cpuLines: string[] = [];
  for (const { shape, ours, theirs } of shapes) {
    const us: System = { name: "svc", url: ours, tally: { ok: 0, fallback: 0, error: 0 } };
    const system = (name: string, url: string): System => ({ name, url, tally: { ok: 0, fallback: 0, error: 0 } });
    const theirDefault = await theirs();
    const theirSaving = await theirs({ saveProgress: true });
    // n8n as it ships (results saved when the execution ends), and saving each node's result as it
    // finishes (the mode closest to our per-node durability).
    const them = theirDefault ? system("n8n", theirDefault) : undefined;
    const themSaving = theirSaving ? system("n8n save-progress", theirSaving) : undefined;
    const systems = them && themSaving ? [us, them, themSaving] : [us];
    const ourCosts = await service.costColumn?.(shape.split(":")[0]!);
    for (let i = 0; i < 30; i++) for (const system of systems) await once(system);
    for (const system of systems) {
      let sent = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (sent++ < WARMUP) await once(system);
        }),
      );
    }

    const latency = new Map<System, number[]>(systems.map((system) => [system, []]));
    for (let i = 0; i < SAMPLES; i++) {
      const order = i % 2 === 0 ? systems : [...systems].reverse();
      for (const system of order) latency.get(system)!.push(await once(system));
    }

    // Each phase keeps IN_FLIGHT requests going and counts the answers after its first second.
    const rate = new Map<
      System,
      { counted: number; seconds: number; answers: number; cpu: Record<string, number>; latency: number[] }
    >(systems.map((system) => [system, { counted: 0, seconds: 0, answers: 0, cpu: {}, latency: [] }]));
    /** CPU seconds used so far by each process (PostgreSQL: all of the machine's, shared by both). */
    const cpu = (): Record<string, number> => ({ ...service.cpu(), ...(n8n ? { n8n: cpuSeconds(n8n.pid) } : {}) });
    const phase = async (system: System) => {
      const costs = system === us ? ourCosts : undefined;
      await costs?.begin();
      const cpuBefore = cpu();
      let answers = 0;
      const start = performance.now();
      const end = start + PHASE_SECONDS * 1000;
      let counted = 0;
      const total = rate.get(system)!;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (performance.now() < end) {
            const took = await once(system);
            answers++;
            const now = performance.now();
            if (now >= start + RAMP_SECONDS * 1000 && now <= end) {
              counted++;
              total.latency.push(took);
            }
          }
        }),
      );
      total.counted += counted;
      total.seconds += PHASE_SECONDS - RAMP_SECONDS;
      total.answers += answers;
      addCpuUsed(total.cpu, cpuBefore, cpu());
      await costs?.end(answers);
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const system of round % 2 === 0 ? systems : [...systems].reverse()) await phase(system);
    }

    const summary = (system: System) => {
      const sorted = [...latency.get(system)!].sort((a, b) => a - b);
      const { counted, seconds, latency: underLoad } = rate.get(system)!;
      const loaded = [...underLoad].sort((a, b) => a - b);
      return {
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        rps: counted / seconds,
        loadP50: percentile(loaded, 50),
        loadP95: percentile(loaded, 95),
        loadP99: percentile(loaded, 99),
      };
    };
    /** CPU ms per request of a system's parts that `counts` takes (not the load generator's). */
    const cpuMs = (system: System, counts: (part: string) => boolean) => {
      const { answers, cpu: used } = rate.get(system)!;
      const seconds = Object.entries(used).reduce((sum, [part, s]) => (counts(part) ? sum + s : sum), 0);
      return (seconds * 1000) / answers;
    };
    for (const system of systems) {
      const { answers, cpu: used } = rate.get(system)!;
      // The other system's own process is idle while this one is measured.
      const parts = Object.entries(used).filter(([part]) =>
        system === us ? part !== "n8n" : !["API", "worker", "Temporal server"].includes(part),
      );
      cpuLines.push(`${system.name} | ${shape}: ${cpuPerRequestText(Object.fromEntries(parts), answers)}`);
    }
    for (const system of systems) {
      const { p50, p95, rps, loadP50, loadP95, loadP99 } = summary(system);
      rows[`${system.name} | ${shape}`] = {
        "p50 ms": p50.toFixed(1),
        "p95 ms": p95.toFixed(1),
        [`req/s @${IN_FLIGHT}`]: rps.toFixed(1),
        [`p50 @${IN_FLIGHT}`]: loadP50.toFixed(0),
        [`p95 @${IN_FLIGHT}`]: loadP95.toFixed(0),
        [`p99 @${IN_FLIGHT}`]: loadP99.toFixed(0),
        ok: String(system.tally.ok),
        "202 fallback": String(system.tally.fallback),
        errors: String(system.tally.error),
      };
    }
    if (them && themSaving) {
      const [a, b, c] = [summary(us), summary(them), summary(themSaving)];
      // Issue 42's targets: our own processes (all but the Temporal server, which leaves the
      // service's machines in production) against all n8n spends; the rest against n8n as it
      // ships (latency) or saving each node (the mode closest to our per-node durability).
      const ours = cpuMs(
        us,
        (part) => !["load generator", "n8n", "Temporal server", "Temporal's PostgreSQL"].includes(part),
      );
      const theirs = cpuMs(them, (part) => part === "n8n" || part === "PostgreSQL");
      ratios.push(
        `${shape}: our processes' CPU ${(ours / theirs).toFixed(2)}x n8n's (${ours.toFixed(1)} / ${theirs.toFixed(1)} ms; target <= 1.0); ` +
          `sequential p50 ${(a.p50 / b.p50).toFixed(2)}x n8n (target <= 1.2); ` +
          `throughput ${(a.rps / c.rps).toFixed(2)}x n8n save-progress (target >= 1.2; ${(a.rps / b.rps).toFixed(2)}x n8n); ` +
          `p99 @${IN_FLIGHT} ${(a.loadP99 / c.loadP99).toFixed(2)}x n8n save-progress (target <= 1.2)`,
      );
    }

    // The Temporal server's work for one run of this shape, from its history.
    if (us.lastRunId) {
      // The hook answers when the run's record ends, a moment before its workflow completes.
      const handle = service.client.workflow.getHandle(us.lastRunId);
      await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      const tally = {
        events: events.length,
        "workflow tasks": events.filter((e) => e.workflowTaskScheduledEventAttributes).length,
        "activity tasks": events.filter((e) => e.activityTaskScheduledEventAttributes).length,
        "local activities": events.filter((e) => e.markerRecordedEventAttributes?.markerName === "core_local_activity")
          .length,
        timers: events.filter((e) => e.timerStartedEventAttributes).length,
      };
      console.log(
        `Temporal work per run, ${shape}: ${Object.entries(tally)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
      );
    }
  }

  console.log(
    `\nSync hooks${n8n ? " vs n8n 1.123 (regular mode, same PostgreSQL server; default and save-progress workflows)" : ""}: ${SAMPLES} sequential samples alternated, ${ROUNDS} rounds of ${PHASE_SECONDS} s phases at ${IN_FLIGHT} in flight`,
  );
  console.table(rows);
  console.log("CPU per request during the throughput phases, by process:");
  for (const line of cpuLines) console.log(`  ${line}`);
  for (const line of ratios) console.log(line);
  if (!n8n) console.log("n8n was not measured: these figures are ours alone, with no ratio.");
} finally {
  agent.destroy();
  await n8n?.close();
  costs = await service.close();
}
if (costs) console.log(`${costsHeading(costsMode(values), "during our throughput phases, by shape")}\n${costs}`);
