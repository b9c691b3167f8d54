import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

const outputs = async (runId: string) =>
  Object.fromEntries((await h.steps(runId)).map((step) => [step.node_id, step.output])) as Record<
    string,
    Record<string, unknown>
  >;

describe("data_table node, through a run", () => {
  it("inserts rows, queries with a filter and an order, updates and deletes them", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "save",
            type: "data_table",
            config: { operation: "insert", table: "orders", rows: "{{ trigger.orders }}" },
          },
          {
            id: "top_open",
            type: "data_table",
            config: {
              operation: "query",
              table: "orders",
              where: { status: "open", "customer.country": { in: ["FR", "DE"] } },
              order_by: "-amount",
              limit: 2,
            },
          },
          {
            id: "close_big",
            type: "data_table",
            config: {
              operation: "update",
              table: "orders",
              where: { amount: { gte: 100 } },
              patch: { status: "closed" },
            },
          },
          {
            id: "drop_small",
            type: "data_table",
            config: { operation: "delete", table: "orders", where: { amount: { lt: 10 } } },
          },
          { id: "remaining", type: "data_table", config: { operation: "query", table: "orders", order_by: "amount" } },
        ],
        [
          ["start", "save"],
          ["save", "top_open"],
          ["top_open", "close_big"],
          ["close_big", "drop_small"],
          ["drop_small", "remaining"],
        ],
      ),
    );
    const orders = [
      { ref: "a", amount: 120, status: "open", customer: { country: "FR" } },
      { ref: "b", amount: 5, status: "open", customer: { country: "DE" } },
      { ref: "c", amount: 60, status: "open", customer: { country: "DE" } },
      { ref: "d", amount: 300, status: "open", customer: { country: "US" } },
    ];
    const run = await h.runToEnd(flowId, { orders });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    const out = await outputs(run.id);

    expect(out.save).toMatchObject({ table: "orders", inserted: 4 });
    const saved = out.save!.rows as Array<{ id: string; ref: string }>;
    expect(saved.map((row) => row.ref)).toEqual(["a", "b", "c", "d"]);
    expect(out.top_open).toEqual({
      table: "orders",
      count: 2,
      rows: [
        { id: saved[0]!.id, ...orders[0] },
        { id: saved[2]!.id, ...orders[2] },
      ],
    });
    expect(out.close_big).toEqual({ table: "orders", updated: 2 });
    expect(out.drop_small).toEqual({ table: "orders", deleted: 1 });
    expect((out.remaining!.rows as Array<Record<string, unknown>>).map((row) => [row.ref, row.status])).toEqual([
      ["c", "open"],
      ["a", "closed"],
      ["d", "closed"],
    ]);
    expect(await testPrisma().dataRow.count({ where: { workspaceId: h.workspaceId, table: "orders" } })).toBe(3);
  });

  it("refuses a bad table name when the flow is saved", async () => {
    const res = await request(h.app)
      .post("/api/flows")
      .set("Cookie", h.cookie)
      .send({
        name: "bad table",
        definition: flow(
          [{ id: "q", type: "data_table", config: { operation: "query", table: "Orders;--" } }],
          [["start", "q"]],
        ),
      });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        path: "definition.nodes[1].config.table",
        message: "must be a lowercase letter, then up to 62 lowercase letters, digits or _",
      },
    ]);
  });

  it("fails the node at once, without retries, on an unknown filter operator", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "bad",
            type: "data_table",
            config: { operation: "query", table: "orders", where: { amount: { between: [1, 2] } } },
          },
        ],
        [["start", "bad"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    const steps = (await h.steps(run.id)).filter((step) => step.node_id === "bad");
    expect(steps).toHaveLength(1);
    expect(steps[0]!.error).toMatchObject({
      type: "NodeFatalError",
      retryable: false,
      message: expect.stringMatching(/^where\.amount: unknown operator "between"/),
    });
  });
});
