import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

const outputs = async (runId: string) =>
  Object.fromEntries((await h.steps(runId)).map((step) => [step.node_id, step.output]));

describe("kv node, through a run", () => {
  it("sets a value with a TTL, reads it in a later run, deletes it", async () => {
    const writer = await h.createFlow(
      flow(
        [
          {
            id: "remember",
            type: "kv",
            config: {
              operation: "set",
              key: "customer:{{ trigger.id }}",
              value: { name: "{{ trigger.name }}", tier: "gold" },
              ttl_seconds: 3600,
            },
          },
        ],
        [["start", "remember"]],
      ),
    );
    const written = await h.runToEnd(writer, { id: 7, name: "Ada" });
    expect(written).toMatchObject({
      status: "success",
      output: { key: "customer:7", value: { name: "Ada", tier: "gold" }, ttl_seconds: 3600 },
    });
    const entry = await testPrisma().kvEntry.findUniqueOrThrow({
      where: { workspaceId_key: { workspaceId: h.workspaceId, key: "customer:7" } },
    });
    expect(entry.value).toEqual({ name: "Ada", tier: "gold" });
    expect(entry.expiresAt!.getTime() - Date.now()).toBeGreaterThan(3500_000);

    const reader = await h.createFlow(
      flow(
        [
          { id: "read", type: "kv", config: { operation: "get", key: "customer:{{ trigger.id }}" } },
          { id: "forget", type: "kv", config: { operation: "delete", key: "customer:{{ trigger.id }}" } },
          { id: "read_again", type: "kv", config: { operation: "get", key: "customer:{{ trigger.id }}" } },
        ],
        [
          ["start", "read"],
          ["read", "forget"],
          ["forget", "read_again"],
        ],
      ),
    );
    const run = await h.runToEnd(reader, { id: 7 });
    expect(run.status).toBe("success");
    expect(await outputs(run.id)).toMatchObject({
      read: { key: "customer:7", value: { name: "Ada", tier: "gold" }, found: true },
      forget: { key: "customer:7", deleted: true },
      read_again: { key: "customer:7", value: null, found: false },
    });
  });

  it("refuses a flow whose kv node lacks what its operation needs", async () => {
    const res = await request(h.app)
      .post("/api/flows")
      .set("Cookie", h.cookie)
      .send({
        name: "bad kv",
        definition: flow(
          [
            { id: "set", type: "kv", config: { operation: "set", key: "k" } },
            { id: "get", type: "kv", config: { operation: "get", key: "k", ttl_seconds: 5 } },
          ],
          [
            ["start", "set"],
            ["set", "get"],
          ],
        ),
      });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { path: "definition.nodes[1].config.value", message: "is required for operation set" },
        { path: "definition.nodes[2].config.ttl_seconds", message: "is not used by operation get (only by set)" },
      ]),
    );
  });

  it("fails the node at once, without retries, on a value the store refuses", async () => {
    // Three copies of a 400 kB input make a value over the 1 MiB limit.
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "bad",
            type: "kv",
            config: { operation: "set", key: "k", value: "{{ trigger.s }}{{ trigger.s }}{{ trigger.s }}" },
          },
        ],
        [["start", "bad"]],
      ),
    );
    const run = await h.runToEnd(flowId, { s: "x".repeat(400_000) });
    expect(run.status).toBe("failed");
    const steps = (await h.steps(run.id)).filter((step) => step.node_id === "bad");
    expect(steps).toHaveLength(1);
    expect(steps[0]!.error).toMatchObject({
      type: "NodeFatalError",
      retryable: false,
      message: expect.stringMatching(/^value is 1200002 bytes of JSON; at most 1048576/),
    });
    const stored = await testPrisma().kvEntry.count({ where: { workspaceId: h.workspaceId, key: "k" } });
    expect(stored).toBe(0);
  });
});
