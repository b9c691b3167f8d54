// npm run bench:items: a list of rows through one node per item, against n8n 1.123 in the same run,
// alternating (issue 48). Both systems take the rows in one HTTP request and answer with the result:
//  (a) hook -> http_request per item to a local server -> transform -> answer
//      n8n: Webhook -> Split Out -> HTTP Request -> Set (all items answered)
//  (b) hook -> set per item -> answer
//      n8n: Webhook -> Split Out -> Set
// Our transform in (a) shapes the array of results in one JSONata expression, as a flow of ours
// would; n8n's Set runs per item, as n8n does. For each shape and round: one request per system,
// its wall time and each process's CPU (ours: API, worker, Temporal server, PostgreSQL; n8n: its
// process and PostgreSQL; the local server and this process counted for neither), per item; then
// the ratios, the peak RSS (VmHWM) of our API and worker, and (--kill, on by default) shape (a)
// with our worker SIGKILLed half way: the run finishes, the local server saw each item once plus at
// most `concurrency` repeats, each with its Idempotency-Key. BENCH_CPU_PROFILE=<dir> writes V8 CPU
// profiles of the API and the worker.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { findN8n, N8N_POSTGRES_URL, startN8n, type N8nNode } from "./helpers/n8n.js";
import { cpuSeconds, startServiceProcesses } from "./helpers/service.js";
import { machinePostgresCpuSeconds } from "./helpers/process-cpu.js";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "50" },
    "no-n8n": { type: "boolean", default: false },
    "no-kill": { type: "boolean", default: false },
  },
});
const ITEMS = Math.min(Math.max(Number(values.items) || 1000, 10), 100_000);
const ROUNDS = Math.min(Math.max(Number(values.rounds) || 3, 1), 20);
const CONCURRENCY = Math.min(Math.max(Number(values.concurrency) || 50, 1), 100);

const peer = values["no-n8n"] ? { missing: "--no-n8n" } : await findN8n();
if ("missing" in peer) console.log(`n8n: not measured (${peer.missing}); measuring this service alone`);
else if (!process.env.BENCH_DATABASE_URL) {
  // The same PostgreSQL server for both: our database is created next to n8n's.
  const admin = new URL(N8N_POSTGRES_URL);
  admin.pathname = "/postgres";
  process.env.BENCH_DATABASE_URL = admin.toString();
}

// The local server the items call: a contact per id, after `delayMs`; each call's key counted.
let delayMs = 0;
const keys: string[] = [];
const contacts = http.createServer((req, res) => {
  const id = Number(req.url!.split("/").at(-1));
  const key = req.headers["idempotency-key"];
  if (typeof key === "string") keys.push(key);
  const answer = () =>
    res
      .writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ id, name: `Contact ${id}`, score: id * 2 }));
  if (delayMs > 0) setTimeout(answer, delayMs);
  else answer();
});
contacts.keepAliveTimeout = 30_000;
contacts.listen(0, "127.0.0.1");
await new Promise((resolve) => contacts.once("listening", resolve));
const contactsUrl = `http://127.0.0.1:${(contacts.address() as AddressInfo).port}`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 8, timeout: 60_000 });
function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const rows = Array.from({ length: ITEMS }, (_, id) => ({ id }));
/** Peak resident memory of a process (VmHWM), in MB. */
const peakRssMb = (pid: number) =>
  Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

const service = await startServiceProcesses({
  env: { HOOK_RATE_LIMIT: "100000000", ITEMS_MAX_COUNT: "100000", EGRESS_ALLOWLIST: "127.0.0.1" },
});
const n8n =
  "missing" in peer
    ? undefined
    : await startN8n(peer.home).catch(async (error: unknown) => {
        await service.close();
        throw error;
      });

interface Measure {
  wallMs: number[];
  cpuMs: number[];
}
const results = new Map<string, Measure>();
const record = (name: string, wallMs: number, cpuMs: number) => {
  const entry = results.get(name) ?? { wallMs: [], cpuMs: [] };
  entry.wallMs.push(wallMs);
  entry.cpuMs.push(cpuMs);
  results.set(name, entry);
};

try {
  const hookFlow = async (name: string, nodes: object[], edges: Array<[string, string]>) => {
    const flow = await service.call("POST", "/api/flows", {
      name,
      definition: {
        nodes: [
          { id: "hook", type: "http_trigger", config: { mode: "sync", response: "output", sync_timeout_ms: 30_000 } },
          ...nodes,
        ],
        edges: edges.map(([from, to]) => ({ from, to })),
      },
    });
    return `${service.base}${(flow.hook as { path: string }).path}`;
  };
  const ours = {
    http: await hookFlow(
      "items: http then transform",
      [
        {
          id: "fetch",
          type: "http_request",
          config: { url: `${contactsUrl}/contacts/{{ item.id }}` },
          items: { from: "{{ input.body.rows }}", concurrency: CONCURRENCY },
        },
        { id: "shape", type: "transform", config: { expression: '$.{ "id": body.id, "label": body.name & "!" }' } },
      ],
      [
        ["hook", "fetch"],
        ["fetch", "shape"],
      ],
    ),
    set: await hookFlow(
      "items: set",
      [
        {
          id: "shape",
          type: "set",
          config: { fields: { id: "{{ item.id }}", label: "Contact {{ item.id }}!" } },
          items: { from: "{{ input.body.rows }}" },
        },
      ],
      [["hook", "shape"]],
    ),
  };
  const splitOut: N8nNode = {
    name: "Split Out",
    type: "n8n-nodes-base.splitOut",
    typeVersion: 1,
    parameters: { fieldToSplitOut: "body.rows", options: {} },
  };
  const n8nSet = (value: string): N8nNode => ({
    name: "Set",
    type: "n8n-nodes-base.set",
    typeVersion: 3.4,
    parameters: {
      assignments: {
        assignments: [
          { id: randomUUID(), name: "id", value: "={{ $json.id }}", type: "number" },
          { id: randomUUID(), name: "label", value, type: "string" },
        ],
      },
      options: {},
    },
  });
  const theirs = n8n && {
    http: await n8n.webhookWorkflow(
      "items: http then set",
      [
        splitOut,
        {
          name: "HTTP Request",
          type: "n8n-nodes-base.httpRequest",
          typeVersion: 4.2,
          parameters: { url: `=${contactsUrl}/contacts/{{ $json.id }}`, options: {} },
        },
        n8nSet("={{ $json.name }}!"),
      ],
      [
        ["Webhook", "Split Out"],
        ["Split Out", "HTTP Request"],
        ["HTTP Request", "Set"],
      ],
      { allEntries: true },
    ),
    set: await n8n.webhookWorkflow(
      "items: set",
      [splitOut, n8nSet("=Contact {{ $json.id }}!")],
      [
        ["Webhook", "Split Out"],
        ["Split Out", "Set"],
      ],
      { allEntries: true },
    ),
  };

  const ourCpu = () => {
    const { "load generator": _self, ...parts } = service.cpu();
    return Object.values(parts).reduce((sum, seconds) => sum + seconds, 0);
  };
  const theirCpu = () => cpuSeconds(n8n!.pid, { children: true }) + machinePostgresCpuSeconds();
  const check = (system: string, shape: string, answer: { status: number; text: string }) => {
    if (answer.status !== 200) throw new Error(`${system} ${shape}: ${answer.status} ${answer.text.slice(0, 300)}`);
    const body = JSON.parse(answer.text) as unknown;
    const list = Array.isArray(body) ? body : [];
    if (list.length !== ITEMS) throw new Error(`${system} ${shape}: ${list.length} results, not ${ITEMS}`);
    const last = list[ITEMS - 1] as { id?: unknown; label?: unknown };
    if (last.id !== ITEMS - 1 || typeof last.label !== "string") {
      throw new Error(`${system} ${shape}: the last result is ${JSON.stringify(last)}`);
    }
  };
  const measure = async (system: string, shape: "http" | "set", url: string, cpu: () => number) => {
    const cpuBefore = cpu();
    const started = performance.now();
    const answer = await post(url, { rows });
    const wallMs = performance.now() - started;
    // The processes' last writes (a run's end, n8n's execution record) land just after the answer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cpuMs = (cpu() - cpuBefore) * 1000;
    check(system, shape, answer);
    record(`${system} ${shape}`, wallMs, cpuMs);
    return wallMs;
  };

  // One of each, not measured: V8 compiles, pools open, n8n loads its nodes.
  for (const shape of ["http", "set"] as const) {
    check("us", shape, await post(ours[shape], { rows }));
    if (theirs) check("n8n", shape, await post(theirs[shape], { rows }));
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of ["http", "set"] as const) {
      // Alternating which system goes first.
      const order = round % 2 === 0 ? (["us", "n8n"] as const) : (["n8n", "us"] as const);
      for (const system of order) {
        if (system === "us") await measure("us", shape, ours[shape], ourCpu);
        else if (theirs) await measure("n8n", shape, theirs[shape], theirCpu);
      }
    }
    console.log(`round ${round + 1} of ${ROUNDS} done`);
  }

  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const perItem = (ms: number) => (ms / ITEMS).toFixed(3);
  console.log(
    `\n${ITEMS} items, ${ROUNDS} rounds, concurrency ${CONCURRENCY} (ours), median of the rounds; ms per item`,
  );
  console.log("| shape | system | wall / item | CPU / item | rounds (wall ms) |");
  console.log("|---|---|---:|---:|---|");
  for (const [name, entry] of results) {
    const [system, shape] = name.split(" ");
    console.log(
      `| ${shape} | ${system} | ${perItem(median(entry.wallMs))} | ${perItem(median(entry.cpuMs))} | ${entry.wallMs.map((ms) => ms.toFixed(0)).join(", ")} |`,
    );
  }
  if (theirs) {
    for (const shape of ["http", "set"]) {
      const us = results.get(`us ${shape}`)!;
      const them = results.get(`n8n ${shape}`)!;
      const wall = median(us.wallMs) / median(them.wallMs);
      const cpu = median(us.cpuMs) / median(them.cpuMs);
      console.log(
        `${shape}: wall ${wall.toFixed(2)}x n8n's (target <= 1.5: ${wall <= 1.5 ? "met" : "not met"}), ` +
          `CPU per item ${cpu.toFixed(2)}x (target <= 2: ${cpu <= 2 ? "met" : "not met"})`,
      );
    }
  }
  console.log(
    `peak RSS: API ${peakRssMb(service.pids.API!).toFixed(0)} MB, worker ${peakRssMb(service.pids.worker!).toFixed(0)} MB` +
      (n8n ? `, n8n ${peakRssMb(n8n.pid).toFixed(0)} MB` : ""),
  );

  if (!values["no-kill"]) await killHalfWay(ours.http);
} finally {
  await n8n?.close();
  await service.close();
  agent.destroy();
  contacts.closeAllConnections();
  contacts.close();
}

/**
 * Shape (a) with the local server answering after 20 ms, our worker SIGKILLed once half the items
 * are recorded, another started: the run finishes, and the server saw each item once plus at most
 * `concurrency` repeats, every call with its item's key.
 */
async function killHalfWay(url: string) {
  keys.length = 0;
  delayMs = 20;
  const answer = post(url, { rows });
  const deadline = Date.now() + 120_000;
  while (keys.length < ITEMS / 2) {
    if (Date.now() > deadline) throw new Error("the kill run did not reach half way in 120 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const atKill = keys.length;
  await service.replaceWorker();
  const done = await answer;
  delayMs = 0;
  if (done.status !== 200) throw new Error(`kill run: ${done.status} ${done.text.slice(0, 300)}`);
  const runId = /"run_id"|run_[0-9a-f]{24}/.exec(keys[0] ?? "")?.[0];
  const perItem = new Map<number, number>();
  for (const key of keys) {
    const index = Number(key.split(":").at(-1));
    perItem.set(index, (perItem.get(index) ?? 0) + 1);
  }
  const missing = rows.filter((row) => !perItem.has(row.id)).length;
  const repeats = keys.length - perItem.size;
  const keyed = keys.every((key) => /^run_[0-9a-f]{24}:fetch:\d+$/.test(key));
  console.log(
    `\nkill: worker SIGKILLed after ${atKill} of ${ITEMS} calls; the run answered ${done.status} with ${(JSON.parse(done.text) as unknown[]).length} results; ` +
      `calls ${keys.length}: ${perItem.size} items, ${missing} missing, ${repeats} repeated (at most ${CONCURRENCY}: ${repeats <= CONCURRENCY ? "met" : "NOT met"}); ` +
      `every call with its item's key: ${keyed ? "yes" : "NO"}${runId ? ` (${runId})` : ""}`,
  );
  if (missing > 0 || repeats > CONCURRENCY || !keyed) process.exitCode = 1;
}
