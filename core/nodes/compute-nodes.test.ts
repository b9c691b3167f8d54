// transform, set and code in real runs: through the API, on a real worker and Temporal server.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const h = useRunHarness();

const order = {
  customer: { name: "Ada" },
  items: [
    { sku: "a", price: 2, quantity: 3 },
    { sku: "b", price: 5, quantity: 1 },
  ],
};

async function logsOf(runId: string) {
  const res = await request(h.app).get(`/api/logs?run_id=${runId}`).set("Cookie", h.cookie);
  expect(res.status).toBe(200);
  return (res.body.items as Array<{ node_id: string; level: string; message: string }>)
    .map((l) => [l.node_id, l.level, l.message])
    .reverse();
}

describe("compute nodes in runs", () => {
  it("shapes data with transform, then builds an object with set from templates", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "shape",
            type: "transform",
            config: {
              expression: '{ "name": customer.name, "total": $sum(items.(price * quantity)), "run": $run.id }',
            },
          },
          {
            id: "label",
            type: "set",
            config: {
              fields: {
                "customer.name": "{{ input.name }}",
                "order.total": "{{ nodes.shape.total }}",
                "order.lines": "{{ trigger.items }}",
                summary: "{{ input.name }} owes {{ input.total }}",
              },
              keep_input: true,
            },
          },
        ],
        [
          ["start", "shape"],
          ["shape", "label"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId, order);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual({
      name: "Ada",
      total: 11,
      run: run.id,
      customer: { name: "Ada" },
      order: { total: 11, lines: order.items },
      summary: "Ada owes 11",
    });
  });

  it("fails a run on an invalid JSONata expression without retrying", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "shape", type: "transform", config: { expression: "items[price >" } }], [["start", "shape"]]),
    );
    const run = await h.runToEnd(flowId, order);
    expect(run).toMatchObject({
      status: "failed",
      error: {
        node_id: "shape",
        message: expect.stringMatching(/^Invalid JSONata expression: .*\(S0\d{3} at position/),
      },
    });
    const steps = (await h.steps(run.id)).filter((s) => s.node_id === "shape");
    expect(steps.map((s) => [s.attempt, s.status])).toEqual([[1, "failed"]]);
  });

  it("runs JavaScript with code and writes its console lines to the run's log", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "count",
            type: "code",
            config: {
              code: `console.log("items:", input.items.length);
                     const skus = await Promise.all(input.items.map(async (item) => item.sku.toUpperCase()));
                     return { count: input.items.length, skus };`,
            },
          },
        ],
        [["start", "count"]],
      ),
    );
    const run = await h.runToEnd(flowId, order);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual({ count: 2, skus: ["A", "B"] });
    expect(await logsOf(run.id)).toEqual([["count", "info", "items: 2"]]);
  });

  it("fails a run whose code loops forever at the time limit, and the next run on the worker succeeds", async () => {
    const endless = await h.createFlow(
      flow(
        [
          {
            id: "spin",
            type: "code",
            config: { code: "console.log('spinning');\nwhile (true) {}", time_limit_ms: 300 },
          },
        ],
        [["start", "spin"]],
      ),
    );
    const failed = await h.runToEnd(endless);
    expect(failed).toMatchObject({
      status: "failed",
      error: { node_id: "spin", message: "The code exceeded its time limit of 300 ms" },
    });
    const steps = (await h.steps(failed.id)).filter((s) => s.node_id === "spin");
    expect(steps).toHaveLength(1);
    expect(steps[0]!.error).toMatchObject({ type: "NodeFatalError", retryable: false });
    expect(await logsOf(failed.id)).toEqual([["spin", "info", "spinning"]]);

    const working = await h.createFlow(
      flow([{ id: "add", type: "code", config: { code: "return input.a + input.b;" } }], [["start", "add"]]),
    );
    const next = await h.runToEnd(working, { a: 2, b: 3 });
    expect(next).toMatchObject({ status: "success", output: 5 });
  });
  it("never renders templates inside code or expressions: run data reaches them only as input", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "js",
            type: "code",
            config: { code: 'return { code: "{{ input.payload }}", via_input: input.payload };' },
          },
          {
            id: "q",
            type: "transform",
            config: { expression: '{ "text": "{{ input.via_input }}", "value": via_input }' },
          },
        ],
        [
          ["start", "js"],
          ["js", "q"],
        ],
      ),
    );
    const payload = '"; globalThis.pwned = 1; "';
    const run = await h.runToEnd(flowId, { payload });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual({ text: "{{ input.via_input }}", value: payload });
    const steps = await h.steps(run.id);
    expect(steps.find((s) => s.node_id === "js")?.output).toEqual({ code: "{{ input.payload }}", via_input: payload });
  });
});
