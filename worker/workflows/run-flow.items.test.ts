// Nodes that run per item (the items setting) through the API, on a real worker against the real
// Temporal dev server and PostgreSQL, with a local HTTP server as the API the items call.
import type { IncomingMessage, ServerResponse } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrisma, testSeal } from "../../test/helpers/context.js";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { openAiAnswer, startFakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: {
    EGRESS_ALLOWLIST: "127.0.0.1",
    OPENAI_API_KEY: "sk-test-openai-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
  },
});

interface Call {
  n: number;
  key: string | undefined;
}

/**
 * The API the items call: `/item/<n>` answers `{n, twice}` after a delay that shrinks as n grows
 * (later items finish first); `/fail/<n>` answers 400 for the n listed in `?bad=`, 503 for those in
 * `?flaky=` on their first call.
 */
let api: LoopbackServer;
const calls: Call[] = [];
let inFlight = 0;
let maxInFlight = 0;
beforeAll(async () => {
  api = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, "http://x");
    const n = Number(url.pathname.split("/").at(-1));
    const key = req.headers["idempotency-key"] as string | undefined;
    const seenBefore = calls.some((call) => call.key === key);
    calls.push({ n, key });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const listed = (name: string) => (url.searchParams.get(name) ?? "").split(",").includes(String(n));
    setTimeout(
      () => {
        inFlight -= 1;
        if (listed("bad")) res.writeHead(400).end("no such item");
        else if (listed("flaky") && !seenBefore) res.writeHead(503).end("busy");
        else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ n, twice: n * 2 }));
      },
      Math.max(1, 30 - n * 3),
    );
  });
});
afterAll(() => api.close());

const resetCalls = () => {
  calls.length = 0;
  maxInFlight = 0;
};

/** A node's item records as stored (their results and errors sealed at rest), by index. */
async function itemRows(runId: string, nodeId: string) {
  const rows = await testPrisma().runItem.findMany({ where: { runId, nodeId }, orderBy: { index: "asc" } });
  return rows.map((row) => ({
    index: row.index,
    status: row.status,
    result: testSeal.open(row.result),
    error: testSeal.open(row.error),
    attempt: row.attempt,
  }));
}

const progressOf = (runId: string, nodeId: string) =>
  testPrisma().runItemSet.findUnique({ where: { runId_nodeId: { runId, nodeId } } });

const numbers = (count: number) => Array.from({ length: count }, (_, n) => n);

describe("items: a node run once per item inside one activity", () => {
  it("http_request per item: results in item order, each with its own Idempotency-Key, at most `concurrency` at once", async () => {
    resetCalls();
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "fetch",
            type: "http_request",
            config: { url: `${api.url}/item/{{ item.n }}` },
            items: { from: "{{ input.rows }}", concurrency: 3 },
          },
          {
            id: "shape",
            type: "set",
            config: { fields: { n: "{{ item.body.n }}", at: "{{ item_index }}" } },
            items: { from: "{{ input }}" },
          },
        ],
        [
          ["start", "fetch"],
          ["fetch", "shape"],
        ],
      ),
    );
    const rows = numbers(10).map((n) => ({ n }));
    const run = await h.runToEnd(flowId, { rows });
    expect(run.status).toBe("success");
    expect(run.output).toEqual(numbers(10).map((n) => ({ n, at: n })));

    expect(calls.map((call) => call.n).sort((a, b) => a - b)).toEqual(numbers(10));
    expect(new Set(calls.map((call) => call.key))).toEqual(new Set(numbers(10).map((n) => `${run.id}:fetch:${n}`)));
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBeGreaterThan(1);

    const records = await itemRows(run.id, "fetch");
    expect(records.map((row) => [row.index, row.status])).toEqual(numbers(10).map((n) => [n, "success"]));
    expect(records[4]!.result).toMatchObject({ status: 200, body: { n: 4, twice: 8 } });
    expect(await progressOf(run.id, "fetch")).toMatchObject({ total: 10, done: 10, failed: 0 });
    // One step row per node attempt, not one per item.
    const steps = await h.steps(run.id);
    expect(steps.filter((step) => step.node_id === "fetch")).toHaveLength(1);
  });

  it("on_error stop: the node fails with the first failed item's error; skip leaves it out; collect keeps it in place", async () => {
    const make = (on_error: string) =>
      h.createFlow(
        flow(
          [
            {
              id: "fetch",
              type: "http_request",
              config: { url: `${api.url}/fail/{{ item }}?bad=2,5` },
              items: { from: "{{ input.rows }}", concurrency: 1, on_error },
            },
          ],
          [["start", "fetch"]],
        ),
      );
    const rows = numbers(7);

    resetCalls();
    const stopped = await h.runToEnd(await make("stop"), { rows });
    expect(stopped.status).toBe("failed");
    expect(stopped.error).toMatchObject({ node_id: "fetch", message: expect.stringContaining("Item 2 failed: GET") });
    // One at a time: nothing after the failed item started.
    expect(calls.map((call) => call.n)).toEqual([0, 1, 2]);
    expect((await itemRows(stopped.id, "fetch")).map((row) => [row.index, row.status])).toEqual([
      [0, "success"],
      [1, "success"],
      [2, "failed"],
    ]);

    const skipped = await h.runToEnd(await make("skip"), { rows });
    expect(skipped.status).toBe("success");
    expect((skipped.output as Array<{ body: { n: number } }>).map((result) => result.body.n)).toEqual([0, 1, 3, 4, 6]);
    const skippedRows = await itemRows(skipped.id, "fetch");
    expect(skippedRows.filter((row) => row.status === "failed").map((row) => row.index)).toEqual([2, 5]);
    expect(skippedRows[2]!.error).toEqual({ message: expect.stringContaining("answered 400"), code: "NodeFatalError" });
    expect(await progressOf(skipped.id, "fetch")).toMatchObject({ total: 7, done: 5, failed: 2 });

    // The run page's API: progress, then the items page by page, failed ones alone.
    const progress = await request(h.app).get(`/api/runs/${skipped.id}/items`).set("Cookie", h.cookie);
    expect(progress.status).toBe(200);
    expect(progress.body.nodes).toEqual([
      { node_id: "fetch", total: 7, done: 5, failed: 2, updated_at: expect.any(String) },
    ]);
    const page = (query: string) =>
      request(h.app).get(`/api/runs/${skipped.id}/items/fetch${query}`).set("Cookie", h.cookie);
    const first = await page("?limit=4");
    expect(first.status).toBe(200);
    expect(first.body.progress).toMatchObject({ total: 7, done: 5, failed: 2 });
    expect(first.body.items.map((item: { index: number; status: string }) => [item.index, item.status])).toEqual([
      [0, "success"],
      [1, "success"],
      [2, "failed"],
      [3, "success"],
    ]);
    expect(first.body.items[0]).toMatchObject({ result: { status: 200, body: { n: 0 } }, error: null, attempt: 1 });
    expect(first.body.items[2]).toMatchObject({ result: null, error: { code: "NodeFatalError" } });
    const second = await page(`?limit=4&cursor=${first.body.next_cursor as string}`);
    expect(second.body.items.map((item: { index: number }) => item.index)).toEqual([4, 5, 6]);
    expect(second.body.next_cursor).toBeNull();
    const failedOnly = await page("?status=failed");
    expect(failedOnly.body.items.map((item: { index: number }) => item.index)).toEqual([2, 5]);
    expect((await page("?cursor=nonsense")).status).toBe(400);
    expect((await page("?limit=501")).status).toBe(400);
    const missing = await request(h.app).get("/api/runs/run_000000000000000000000000/items").set("Cookie", h.cookie);
    expect(missing.status).toBe(404);
    expect((await request(h.app).get(`/api/runs/${skipped.id}/items`)).status).toBe(401);

    const collected = await h.runToEnd(await make("collect"), { rows });
    expect(collected.status).toBe("success");
    const output = collected.output as Array<Record<string, unknown>>;
    expect(output).toHaveLength(7);
    expect(output[2]).toEqual({ error: { message: expect.stringContaining("answered 400"), code: "NodeFatalError" } });
    expect(output[3]).toMatchObject({ status: 200, body: { n: 3 } });
  });

  it("an item failing retryably fails the attempt once the others are done; the retry runs only that item", async () => {
    resetCalls();
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "fetch",
            type: "http_request",
            config: { url: `${api.url}/fail/{{ item }}?flaky=1` },
            items: { from: "{{ input.rows }}", concurrency: 2, on_error: "skip" },
            retry: { max_attempts: 3, initial_interval_ms: 100 },
          },
        ],
        [["start", "fetch"]],
      ),
    );
    const run = await h.runToEnd(flowId, { rows: numbers(5) });
    expect(run.status).toBe("success");
    expect((run.output as Array<{ body: { n: number } }>).map((result) => result.body.n)).toEqual(numbers(5));
    // Item 1 twice (503, then 200), every other item once.
    expect(calls.map((call) => call.n).sort((a, b) => a - b)).toEqual([0, 1, 1, 2, 3, 4]);
    const records = await itemRows(run.id, "fetch");
    expect(records.map((row) => [row.index, row.attempt])).toEqual([
      [0, 1],
      [1, 2],
      [2, 1],
      [3, 1],
      [4, 1],
    ]);
    const steps = (await h.steps(run.id)).filter((step) => step.node_id === "fetch");
    expect(steps.map((step) => step.status)).toEqual(["failed", "success"]);
    expect(steps[0]!.error).toMatchObject({
      message: expect.stringContaining("1 of 5 items failed and are tried again"),
    });
  });

  it("transform and code per item: the item is the input, $item_index and the order kept, an item's failure collected", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "expr",
            type: "transform",
            config: { expression: '$ = 3 ? $error("three") : { "v": $ * 10, "i": $item_index }' },
            items: { from: "{{ input.rows }}", on_error: "collect" },
          },
          {
            id: "js",
            type: "code",
            config: { code: "return input.error ? 'failed' : input.v + 1;" },
            items: { from: "{{ input }}", concurrency: 2 },
          },
        ],
        [
          ["start", "expr"],
          ["expr", "js"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { rows: numbers(6) });
    expect(run.status).toBe("success");
    expect(run.output).toEqual([1, 11, 21, "failed", 41, 51]);
    const records = await itemRows(run.id, "expr");
    expect(records[2]!.result).toEqual({ v: 20, i: 2 });
    expect(records[3]).toMatchObject({ status: "failed", error: { message: expect.stringContaining("three") } });
  });

  it("data_table, send_webhook and ai.prompt per item: one insert, one delivery and one prompt per item", async () => {
    resetCalls();
    provider.reset();
    provider.script("openai", openAiAnswer({ text: "A" }), openAiAnswer({ text: "B" }));
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "store",
            type: "data_table",
            config: {
              operation: "insert",
              table: "contacts",
              rows: [{ name: "{{ item.name }}", at: "{{ item_index }}" }],
            },
            items: { from: "{{ input.people }}" },
          },
          {
            id: "notify",
            type: "send_webhook",
            config: { url: `${api.url}/item/{{ item_index }}`, payload: { row: "{{ item.rows[0].name }}" } },
            items: { from: "{{ input }}", concurrency: 2 },
          },
          {
            id: "ask",
            type: "ai.prompt",
            config: { model: "gpt-test", prompt: "Greet {{ item_index }} ({{ item.status }})" },
            items: { from: "{{ input }}", concurrency: 1 },
          },
        ],
        [
          ["start", "store"],
          ["store", "notify"],
          ["notify", "ask"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, { people: [{ name: "Ada" }, { name: "Grace" }] });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect((run.output as Array<{ text: string }>).map((answer) => answer.text)).toEqual(["A", "B"]);
    expect(provider.calls.map((call) => JSON.stringify(call.body.messages))).toEqual([
      expect.stringContaining("Greet 0 (200)"),
      expect.stringContaining("Greet 1 (200)"),
    ]);
    expect(new Set(calls.map((call) => call.key))).toEqual(new Set([`${run.id}:notify:0`, `${run.id}:notify:1`]));
    const stored = await itemRows(run.id, "store");
    expect(stored.map((row) => (row.result as { rows: Array<{ name: string; at: number }> }).rows[0])).toMatchObject([
      { name: "Ada", at: 0 },
      { name: "Grace", at: 1 },
    ]);
  });

  it("cancelling the run mid-way stops its items within seconds", async () => {
    resetCalls();
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "fetch",
            type: "http_request",
            // Item numbers from 100 answer after the server's shortest delay: 100 items take seconds.
            config: { url: `${api.url}/item/{{ item }}` },
            items: { from: "{{ input.rows }}", concurrency: 2, rate_per_second: 40 },
          },
        ],
        [["start", "fetch"]],
      ),
    );
    const started = await h.startRun(flowId, { rows: numbers(400).map((n) => n + 100) });
    expect(started.status).toBe(201);
    const runId = started.body.run_id as string;
    await expect
      .poll(async () => (await progressOf(runId, "fetch"))?.done ?? 0, { timeout: 20_000, interval: 100 })
      .toBeGreaterThan(10);
    const cancel = await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    expect(cancel.status).toBe(202);
    const cancelledAt = Date.now();
    expect((await h.waitForEnd(runId)).status).toBe("cancelled");
    // The items stop once the activity hears of it, in the answer to its next heartbeat (each second).
    await new Promise((resolve) => setTimeout(resolve, 3000 - (Date.now() - cancelledAt)));
    const after = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(calls.length).toBe(after);
    expect(inFlight).toBe(0);
    // At 40 a second, 400 items would have taken 10 s: far fewer were called or recorded.
    expect(calls.length).toBeLessThan(250);
    expect((await progressOf(runId, "fetch"))!.done).toBeLessThan(250);
  });

  it("limits: a workspace lowers them, never above the server's (400 naming the field); a node given more fails naming the limit", async () => {
    const settings = (body: object) => request(h.app).put("/api/workspace/settings").set("Cookie", h.cookie).send(body);
    const above = await settings({ items_max_count: 100_001 });
    expect(above.status).toBe(400);
    expect(above.body).toMatchObject({
      code: "invalid_settings",
      error: "items_max_count: at most 100000, this server's ITEMS_MAX_COUNT",
      details: [{ path: "body.items_max_count" }],
    });
    const bytesAbove = await settings({ items_max_bytes: 16 * 1024 * 1024 + 1 });
    expect(bytesAbove.status).toBe(400);
    expect(bytesAbove.body.details).toEqual([expect.objectContaining({ path: "body.items_max_bytes" })]);

    const lowered = await settings({ items_max_count: 5, items_max_bytes: 2048 });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({
      items_max_count: 5,
      items_max_bytes: 2048,
      items_limits: { max_count: 5, max_bytes: 2048 },
    });
    const flowId = await h.createFlow(
      flow(
        [{ id: "shape", type: "set", config: { fields: { x: "{{ item }}" } }, items: { from: "{{ input.rows }}" } }],
        [["start", "shape"]],
      ),
    );
    try {
      expect(await h.runToEnd(flowId, { rows: numbers(5) })).toMatchObject({ status: "success" });
      expect(await h.runToEnd(flowId, { rows: numbers(6) })).toMatchObject({
        status: "failed",
        error: {
          node_id: "shape",
          message: expect.stringContaining("6 items, more than 5 (this workspace's items_max_count)"),
        },
      });
      expect(await h.runToEnd(flowId, { rows: ["x".repeat(3000)] })).toMatchObject({
        status: "failed",
        error: { message: expect.stringContaining("more than 2048 bytes as JSON (this workspace's items_max_bytes)") },
      });
    } finally {
      expect((await settings({ items_max_count: null, items_max_bytes: null })).body.items_limits).toEqual({
        max_count: 100_000,
        max_bytes: 16 * 1024 * 1024,
      });
    }
  });

  it("10,000 items through transform and set: in order, the output stored apart, the worker's heap bounded", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "price",
            type: "transform",
            config: { expression: '{ "id": id, "total": price * quantity, "at": $item_index }' },
            items: { from: "{{ input.rows }}" },
          },
          {
            id: "label",
            type: "set",
            config: { fields: { id: "{{ item.id }}", label: "#{{ item.at }}: {{ item.total }}" } },
            items: { from: "{{ input }}" },
          },
          { id: "check", type: "transform", config: { expression: '{ "count": $count($), "last": $[-1] }' } },
        ],
        [
          ["start", "price"],
          ["price", "label"],
          ["label", "check"],
        ],
      ),
    );
    const rows = numbers(10_000).map((n) => ({ id: `row-${n}`, price: n % 100, quantity: 3, note: "x".repeat(40) }));
    let peakHeap = 0;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
    const baseline = process.memoryUsage().heapUsed;
    const startedAt = Date.now();
    const run = await h.runToEnd(flowId, { rows }).finally(() => clearInterval(sampler));
    const tookMs = Date.now() - startedAt;
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual({ count: 10_000, last: { id: "row-9999", label: "#9999: 297" } });
    // Each 10,000-item output went to the blob store and through Temporal as a reference.
    const blobs = await testPrisma().runBlob.findMany({ where: { runId: run.id }, select: { nodeId: true } });
    expect(blobs.map((blob) => blob.nodeId).sort()).toEqual(expect.arrayContaining(["label", "price"]));
    expect(await progressOf(run.id, "label")).toMatchObject({ total: 10_000, done: 10_000, failed: 0 });
    // This process holds the test's API and worker: the run's data is a few MB, its peak far below the heap's limit.
    expect(peakHeap - baseline).toBeLessThan(400 * 1024 * 1024);
    const took = (await h.steps(run.id)).map((step) => `${step.node_id} ${String(step.duration_ms)} ms`).join(", ");
    console.log(
      `10,000 items: ${tookMs} ms (${took}), peak heap +${Math.round((peakHeap - baseline) / 1024 / 1024)} MB`,
    );
  }, 120_000);

  it("loop with batch_size: a child run per batch, which runs its batch per item; outputs in batch order", async () => {
    const perBatch = await h.createFlow(
      flow(
        [
          {
            id: "label",
            type: "set",
            config: { fields: { n: "{{ item }}", at: "{{ item_index }}", batch: "{{ input.batch }}" } },
            items: { from: "{{ input.items }}" },
          },
        ],
        [["start", "label"]],
      ),
      "Per batch",
    );
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "each",
            type: "loop",
            config: { items: "{{ input.rows }}", flow_id: perBatch, batch_size: 4, max_items: 2000 },
          },
        ],
        [["start", "each"]],
      ),
    );
    const run = await h.runToEnd(flowId, { rows: numbers(10).map((n) => n * 10) });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual([
      [0, 10, 20, 30].map((n, at) => ({ n, at, batch: 0 })),
      [40, 50, 60, 70].map((n, at) => ({ n, at, batch: 1 })),
      [80, 90].map((n, at) => ({ n, at, batch: 2 })),
    ]);
    const children = await testPrisma().run.count({ where: { parentRunId: run.id } });
    expect(children).toBe(3);
  });

  it("fairness: another workspace's short runs go on while one workspace's long item run runs", async () => {
    // Workspace A: 40,000 items through an expression that takes a while each.
    const long = await h.createFlow(
      flow(
        [
          {
            id: "crunch",
            type: "transform",
            config: { expression: "$sum([1..400]) + $" },
            items: { from: "{{ input.rows }}" },
          },
        ],
        [["start", "crunch"]],
      ),
    );
    const started = await h.startRun(long, { rows: numbers(40_000) });
    expect(started.status).toBe(201);
    const longRun = started.body.run_id as string;
    await expect
      .poll(async () => (await progressOf(longRun, "crunch"))?.done ?? 0, { timeout: 30_000, interval: 100 })
      .toBeGreaterThan(0);

    // Workspace B: short runs of an expression (the same sandboxes) and an item node of its own.
    const other = await createTestUser("neighbour");
    const { cookie } = await login(h.app, other.email);
    const fixed = await request(h.app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({
        name: "Short",
        definition: flow(
          [
            { id: "sum", type: "transform", config: { expression: "$sum(values)" } },
            { id: "each", type: "set", config: { fields: { v: "{{ item }}" } }, items: { from: [1, 2, 3] } },
          ],
          [
            ["start", "sum"],
            ["sum", "each"],
          ],
        ),
      });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
    for (let i = 0; i < 3; i++) {
      const began = Date.now();
      const run = await request(h.app)
        .post(`/api/workflows/${fixed.body.id as string}/run`)
        .set("Cookie", cookie)
        .send({ input: { values: [1, 2, i] } });
      expect(run.status).toBe(201);
      let status = "running";
      while (status === "running" && Date.now() - began < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const read = await request(h.app)
          .get(`/api/runs/${run.body.run_id as string}`)
          .set("Cookie", cookie);
        status = read.body.run.status as string;
        if (status !== "running") expect(read.body.run.output).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
      }
      expect(status).toBe("success");
      // Seconds at most, not the long run's whole time.
      expect(Date.now() - began).toBeLessThan(8000);
    }
    // The long run was still going: B did not wait for it to end.
    const progress = (await progressOf(longRun, "crunch"))!;
    expect(progress.done).toBeLessThan(40_000);
    await request(h.app).post(`/api/runs/${longRun}/cancel`).set("Cookie", h.cookie);
    expect((await h.waitForEnd(longRun)).status).toBe("cancelled");
  }, 120_000);

  it("an empty array outputs an empty array; items.from that gives no array fails the node for good", async () => {
    const flowId = await h.createFlow(
      flow(
        [{ id: "shape", type: "set", config: { fields: { x: "{{ item }}" } }, items: { from: "{{ input.rows }}" } }],
        [["start", "shape"]],
      ),
    );
    expect(await h.runToEnd(flowId, { rows: [] })).toMatchObject({ status: "success", output: [] });
    const failed = await h.runToEnd(flowId, { rows: "not a list" });
    expect(failed).toMatchObject({
      status: "failed",
      error: { node_id: "shape", message: expect.stringContaining("items.from: must give an array, gave string") },
    });
  });

  it("validation: {{ item }} only where the node runs per item, items only on nodes that run in one activity", async () => {
    const res = await request(h.app)
      .post("/api/flows")
      .set("Cookie", h.cookie)
      .send({
        name: "bad items",
        definition: flow(
          [
            { id: "a", type: "set", config: { fields: { x: "{{ item.x }}" } } },
            {
              id: "b",
              type: "condition",
              config: { left: 1, operator: "equals", right: 1 },
              items: { from: "{{ input }}" },
            },
            { id: "c", type: "set", config: { fields: {} }, items: { from: "rows", concurrency: 1000 } },
          ],
          [
            ["start", "a"],
            ["a", "b"],
            ["a", "c"],
          ],
        ),
      });
    expect(res.status).toBe(400);
    const paths = (res.body.details as Array<{ path: string }>).map((detail) => detail.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "definition.nodes[1].config.fields.x",
        "definition.nodes[2].items",
        "definition.nodes[3].items.concurrency",
      ]),
    );
  });
});
