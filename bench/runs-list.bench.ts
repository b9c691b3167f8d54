// npm run bench:runs-list: GET /api/runs as the runs page asks it (a page of 50, newest first) with
// 10,000 runs in the workspace (--runs for more) over 20 flows, every status and three triggers:
// by flow and status (the issue's figure), by trigger, by an id's beginning, and unfiltered; with
// the plan PostgreSQL chose for the flow-and-status query.
import { parseArgs } from "node:util";
import { percentile } from "./helpers/database.js";
import { startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10000" } } });
const RUNS = Math.min(Number(values.runs) || 10_000, 5_000_000);
const SAMPLES = 40;
const FLOW = `wf_${"7".padStart(24, "0")}`;

const stack = await startBenchStack();
try {
  let t = performance.now();
  await stack.prisma.$executeRaw`
    INSERT INTO runs (id, workspace_id, flow_id, flow_name, version, status, trigger, input, started_at, finished_at, duration_ms)
    SELECT 'run_' || lpad(to_hex(i::bigint * 7919), 24, '0'),
           ${stack.workspaceId},
           'wf_' || lpad(to_hex(i % 20), 24, '0'),
           'Flow ' || (i % 20),
           1,
           (ARRAY['success', 'success', 'success', 'failed', 'cancelled', 'running'])[1 + i % 6]::"RunStatus",
           (ARRAY['api', 'webhook', 'schedule'])[1 + (i / 7) % 3],
           '{}'::jsonb,
           now() - (i::double precision / ${RUNS}) * interval '30 days',
           now() - (i::double precision / ${RUNS}) * interval '30 days' + interval '1 second',
           50
    FROM generate_series(1, ${RUNS}) AS i`;
  await stack.prisma.$executeRawUnsafe("ANALYZE runs");
  console.log(`seeded ${RUNS} runs in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const queries: Record<string, string> = {
    "flow + status": `flow_id=${FLOW}&status=failed`,
    trigger: "trigger=webhook",
    "id beginning": "id=run_000000000000000001",
    none: "",
  };
  const table: Record<string, Record<string, string>> = {};
  for (const [name, query] of Object.entries(queries)) {
    const path = `/api/runs?limit=50${query ? `&${query}` : ""}`;
    for (let i = 0; i < 3; i++) await stack.call("GET", path);
    const times: number[] = [];
    let count = 0;
    for (let i = 0; i < SAMPLES; i++) {
      t = performance.now();
      const body = (await stack.call("GET", path)) as { items: unknown[] };
      times.push(performance.now() - t);
      count = body.items.length;
    }
    times.sort((a, b) => a - b);
    table[name] = {
      items: String(count),
      "p50 ms": percentile(times, 50).toFixed(1),
      "p95 ms": percentile(times, 95).toFixed(1),
    };
  }
  console.log(`GET /api/runs over ${RUNS} runs, ${SAMPLES} requests one at a time (loopback, server time):`);
  console.table(table);

  const plan = await stack.prisma.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(
    `EXPLAIN ANALYZE SELECT * FROM runs WHERE workspace_id = $1 AND flow_id = $2 AND status = 'failed'
     ORDER BY started_at DESC, id DESC LIMIT 51`,
    stack.workspaceId,
    FLOW,
  );
  console.log("flow + status plan:");
  for (const row of plan) console.log(`  ${row["QUERY PLAN"]}`);
} finally {
  await stack.close();
}
