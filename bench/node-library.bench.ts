// npm run bench:nodes: what transform, code and http_request nodes cost against the engine's
// no-op node. Four 10-node chains (one per type) run through the API on one dev server:
//  - latency p50/p95 one run at a time, and per-node cost over the no-op chain
//  - completed runs per second with 20 in flight, and this process's CPU ms per node
// http_request calls a loopback server, allow-listed through EGRESS_ALLOWLIST.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { percentile } from "./helpers/database.js";
import { passNode, startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({
  options: { samples: { type: "string", default: "30" }, runs: { type: "string", default: "100" } },
});
const SAMPLES = Math.min(Number(values.samples) || 30, 500);
const THROUGHPUT_RUNS = Math.min(Number(values.runs) || 100, 2000);
const IN_FLIGHT = 20;
const CHAIN = 10;

// The loopback API the http_request chain calls: a small JSON answer.
const api = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ n: 1, items: [1, 2, 3] }));
  });
});
api.listen(0, "127.0.0.1");
await once(api, "listening");
const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/item`;

const stack = await startBenchStack({ config: { EGRESS_ALLOWLIST: "127.0.0.1" }, nodes: [passNode] });
const { call } = stack;

try {
  const chainOf = async (type: string, config: object) => {
    const definition = {
      nodes: Array.from({ length: CHAIN }, (_, i) => ({ id: `n${i}`, type, config })),
      edges: Array.from({ length: CHAIN - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
    };
    return (await call("POST", "/api/flows", { name: type, definition })).id as string;
  };
  const flows = {
    "no-op (pass)": await chainOf("pass", {}),
    transform: await chainOf("transform", { expression: '{ "n": n + 1, "items": [1, 2, 3].($ * 2) }' }),
    code: await chainOf("code", { code: "return { n: input.n + 1, items: [1, 2, 3].map((x) => x * 2) };" }),
    http_request: await chainOf("http_request", { url: apiUrl }),
  };

  const runOnce = (flowId: string) => stack.runFlow(flowId);

  const rows: Record<string, Record<string, string>> = {};
  const p50s: Record<string, number> = {};
  const cpuPerNode: Record<string, number> = {};
  for (const [label, flowId] of Object.entries(flows)) {
    for (let i = 0; i < 5; i++) await runOnce(flowId);
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      await runOnce(flowId);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    let next = 0;
    const cpuBefore = process.cpuUsage();
    const t = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < THROUGHPUT_RUNS) {
          next++;
          await runOnce(flowId);
        }
      }),
    );
    const seconds = (performance.now() - t) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    p50s[label] = percentile(times, 50);
    cpuPerNode[label] = (cpu.user + cpu.system) / 1000 / (THROUGHPUT_RUNS * CHAIN);
    rows[label] = {
      "p50 ms": percentile(times, 50).toFixed(1),
      "p95 ms": percentile(times, 95).toFixed(1),
      [`runs/s @${IN_FLIGHT}`]: (THROUGHPUT_RUNS / seconds).toFixed(1),
      [`nodes/s @${IN_FLIGHT}`]: ((THROUGHPUT_RUNS * CHAIN) / seconds).toFixed(0),
      "CPU ms/node": cpuPerNode[label].toFixed(2),
    };
  }
  const noop = "no-op (pass)";
  for (const label of Object.keys(rows)) {
    rows[label]!["ms/node over no-op (p50)"] = label === noop ? "-" : ((p50s[label]! - p50s[noop]!) / CHAIN).toFixed(2);
    rows[label]!["CPU ms/node over no-op"] = label === noop ? "-" : (cpuPerNode[label]! - cpuPerNode[noop]!).toFixed(2);
  }
  console.log(
    `Node library: ${CHAIN}-node chains through the API, ${SAMPLES} runs one at a time, ${THROUGHPUT_RUNS} runs at ${IN_FLIGHT} in flight`,
  );
  console.table(rows);
} finally {
  api.close();
  await stack.close();
}
