// npm run bench:metrics: GET /api/metrics latency with one million runs in the workspace, spread
// over 30 days (a quarter of them in the last week), 50 flows and every status, and 100,000 agent
// runs with token counts.
import { parseArgs } from "node:util";
import { percentile } from "./helpers/database.js";
import { startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "1000000" } } });
const RUNS = Math.min(Number(values.runs) || 1_000_000, 5_000_000);
const SAMPLES = 30;

const stack = await startBenchStack();
try {
  let t = performance.now();
  await stack.prisma.$executeRaw`
    INSERT INTO runs (id, workspace_id, flow_id, flow_name, version, status, trigger, input, started_at, finished_at, duration_ms)
    SELECT 'run_' || lpad(to_hex(i), 24, '0'),
           ${stack.workspaceId},
           'wf_' || lpad(to_hex(i % 50), 24, '0'),
           'Flow ' || (i % 50),
           1,
           (ARRAY['success', 'success', 'success', 'failed', 'cancelled', 'running'])[1 + i % 6]::"RunStatus",
           'api',
           '{}'::jsonb,
           now() - (i::double precision / ${RUNS}) * interval '30 days',
           now() - (i::double precision / ${RUNS}) * interval '30 days' + interval '1 second',
           CASE WHEN i % 6 = 5 THEN NULL ELSE 50 + ((i::bigint * 7919) % 5000)::int END
    FROM generate_series(1, ${RUNS}) AS i`;
  // Agent runs: one for every ten runs, over the same 30 days, with token counts.
  await stack.prisma.$executeRaw`
    INSERT INTO agent_runs (id, workspace_id, agent_id, status, provider, model, instructions, tools, limits,
                            input_tokens, output_tokens, started_at, finished_at, duration_ms)
    SELECT 'agr_' || lpad(to_hex(i), 24, '0'), ${stack.workspaceId}, 'assistant',
           (ARRAY['success', 'success', 'failed', 'running'])[1 + i % 4]::"AgentRunStatus",
           'openai', 'gpt-test', 'x', ARRAY['log.write'], '{}'::jsonb,
           100 + i % 900, 10 + i % 90,
           now() - (i::double precision / ${Math.floor(RUNS / 10)}) * interval '30 days', NULL, NULL
    FROM generate_series(1, ${Math.floor(RUNS / 10)}) AS i`;
  await stack.prisma.$executeRawUnsafe("ANALYZE runs");
  await stack.prisma.$executeRawUnsafe("ANALYZE agent_runs");
  console.log(
    `seeded ${RUNS} runs and ${Math.floor(RUNS / 10)} agent runs in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  for (let i = 0; i < 3; i++) await stack.call("GET", "/api/metrics");
  const times: number[] = [];
  let body: Record<string, unknown> = {};
  for (let i = 0; i < SAMPLES; i++) {
    t = performance.now();
    body = await stack.call("GET", "/api/metrics");
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`GET /api/metrics over ${RUNS} runs, ${SAMPLES} requests one at a time:`);
  console.table({
    latency: { "p50 ms": percentile(times, 50).toFixed(1), "p95 ms": percentile(times, 95).toFixed(1) },
  });
  console.log("last week:", JSON.stringify((body.runs as Record<string, unknown>).last_week));
  console.log("agents:", JSON.stringify(body.agents));
} finally {
  await stack.close();
}
