// npm run bench:expressions: what a transform node's evaluation costs, on the event loop as it
// ran before issue 39 (JSONata in the worker's or the API's own thread) and in a process of the
// expression pool as it runs now (JSON in, JSON out, a warm process, its parsed expression kept).
// For three expressions and inputs, one evaluation after another: the wall time of each, the CPU
// it took on the caller's thread (which serves the API or heartbeats for the worker), and the
// CPU the sandbox process took. No service, database or Temporal: the evaluation alone.
import jsonata from "jsonata";
import { parseArgs } from "node:util";
import { createExpressionPool } from "../core/sandbox/js-sandbox-pool.js";
import { cpuSeconds } from "./helpers/service.js";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" } } });
/** How long each case runs, at most (and at most 20,000 evaluations). */
const SECONDS = Math.min(Math.max(Number(values.seconds) || 3, 1), 30);

const items = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ sku: `sku-${i}`, price: i % 50, quantity: 1 + (i % 3), tags: ["a"] }));
const CASES = [
  { name: "tiny: { doubled: n }", expression: '{ "doubled": n * 2 }', input: { n: 21 } },
  {
    name: "order of 10 items",
    expression: '{ "total": $sum(items.(price * quantity)), "skus": items.sku, "big": items[price > 3].sku }',
    input: { customer: { name: "Ada" }, items: items(10) },
  },
  {
    name: "1,000 items (90 KB)",
    expression: '{ "total": $sum(items.(price * quantity)), "expensive": items[price > 40].sku }',
    input: { items: items(1000) },
  },
];

/** The old transform's evaluation, on this thread: parse, bind $run, evaluate, copy out as JSON. */
async function onEventLoop(expression: string, input: unknown): Promise<unknown> {
  const parsed = jsonata(expression, { timeout: 1000, stack: 2000 });
  parsed.assign("run", { id: "run_1", flow_id: "flow_1", node_id: "shape", attempt: 1 });
  return JSON.parse(JSON.stringify((await parsed.evaluate(input)) ?? null));
}

const pool = createExpressionPool({ processes: 1 });
const inProcess = (expression: string, input: unknown) =>
  pool.run({
    expression,
    input,
    timeLimitMs: 1000,
    bindings: { run: { id: "run_1", flow_id: "flow_1", node_id: "shape", attempt: 1 } },
    workspaceId: "ws_bench",
  });

/** Evaluations one after another for SECONDS: per evaluation, wall µs, this thread's CPU µs, the sandbox's CPU µs. */
async function measure(evaluate: () => Promise<unknown>) {
  for (let i = 0; i < 50; i++) await evaluate();
  const sandbox = () => (pool.stats().threads[0] ? cpuSeconds(pool.stats().threads[0]!) : 0);
  const cpu = process.cpuUsage();
  const sandboxBefore = sandbox();
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < SECONDS * 1000 && count < 20_000) {
    await evaluate();
    count++;
  }
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const us = (total: number) => `${Math.round(total / count)} µs`;
  return {
    evaluations: count,
    wall: us(wall * 1000),
    "caller CPU": us(used.user + used.system),
    "sandbox CPU": us((sandbox() - sandboxBefore) * 1e6),
  };
}

try {
  const rows: Record<string, Record<string, unknown>> = {};
  for (const { name, expression, input } of CASES) {
    const expected = JSON.stringify(await onEventLoop(expression, input));
    if (JSON.stringify(await inProcess(expression, input)) !== expected) throw new Error(`${name}: results differ`);
    rows[`${name}, before (event loop)`] = await measure(() => onEventLoop(expression, input));
    rows[`${name}, now (sandbox process)`] = await measure(() => inProcess(expression, input));
  }
  console.log(`\nOne transform evaluation after another, ${SECONDS} s a case (process CPU from /proc, 10 ms ticks)\n`);
  console.table(rows);
} finally {
  await pool.close();
}
