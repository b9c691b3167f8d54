// npm run bench:hooks: an async-mode hook under load from autocannon on loopback. Prints p50/p99
// latency and sustained requests per second, then checks that every 202 has a run that finishes
// in success (zero lost runs). Options: --seconds (default 20), --connections (default 20).
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "20" }, connections: { type: "string", default: "20" } },
});
const SECONDS = Math.min(Math.max(Number(values.seconds) || 20, 1), 120);
const CONNECTIONS = Math.min(Math.max(Number(values.connections) || 20, 1), 200);

const stack = await startBenchStack({ config: { HOOK_RATE_LIMIT: "1000000" } });
try {
  const created = await stack.call("POST", "/api/flows", {
    name: "Hook bench",
    definition: {
      nodes: [
        { id: "hook", type: "http_trigger" },
        { id: "pass", type: "set", config: { fields: { seen: true }, keep_input: true } },
      ],
      edges: [{ from: "hook", to: "pass" }],
    },
  });
  const hookPath = (created.hook as { path: string }).path;

  // Warm-up: the first requests pay for connections and JIT.
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${stack.base}${hookPath}`, {
      method: "POST",
      body: "{}",
      headers: { "Content-Type": "application/json" },
    });
    if (res.status !== 202) throw new Error(`warm-up: ${res.status} ${await res.text()}`);
  }

  const accepted: string[] = [];
  const statuses = new Map<number, number>();
  const result = await autocannon({
    url: `${stack.base}${hookPath}`,
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ order: 1, items: [{ sku: "A-1", qty: 2 }] }),
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        onResponse: (status, body) => {
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 202) accepted.push((JSON.parse(body) as { run_id: string }).run_id);
        },
      },
    ],
  });

  // Zero lost runs: every accepted request has a run record that ends in success.
  const deadline = Date.now() + 600_000;
  let running = Infinity;
  while (running > 0 && Date.now() < deadline) {
    running = await stack.prisma.run.count({ where: { id: { in: accepted }, status: "running" } });
    if (running > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const drainedMs = Date.now() - (deadline - 600_000);
  const succeeded = await stack.prisma.run.count({ where: { id: { in: accepted }, status: "success" } });
  const unique = new Set(accepted).size;

  console.log(`\nhook endpoint, async mode: ${CONNECTIONS} connections for ${SECONDS} s (autocannon, loopback)`);
  console.log(`  responses         ${[...statuses].map(([status, count]) => `${status}: ${count}`).join(", ")}`);
  console.log(`  errors/timeouts   ${result.errors} / ${result.timeouts}`);
  console.log(
    `  latency           p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
  );
  console.log(
    `  requests/s        ${result.requests.average.toFixed(1)} average (${result.requests.min} min, ${result.requests.max} max per second)`,
  );
  console.log(
    `  runs              ${unique} accepted, ${succeeded} ended in success, ${unique - succeeded} lost or not successful (drained ${(drainedMs / 1000).toFixed(1)} s after the load)`,
  );
  if (unique !== accepted.length) console.log(`  DUPLICATE run ids in 202 answers: ${accepted.length - unique}`);
  if (succeeded !== unique) process.exitCode = 1;
} finally {
  await stack.close();
}
