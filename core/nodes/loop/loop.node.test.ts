import { describe, expect, it } from "vitest";
import { loopNode } from "./loop.node.js";

const flowId = "wf_0123456789abcdef01234567";

describe("loop node", () => {
  it("runs another flow per item, 5 at a time and 100 items at most by default", () => {
    expect(loopNode.config.parse({ items: "{{ input.items }}", flow_id: flowId })).toEqual({
      items: "{{ input.items }}",
      flow_id: flowId,
      concurrency: 5,
      max_items: 100,
    });
    expect(loopNode).toMatchObject({ kind: "control" });
    expect(loopNode.execution).toBeUndefined();
  });

  it.each([
    ["a flow id of another shape", { flow_id: "flow_1" }],
    ["no concurrency", { flow_id: flowId, concurrency: 0 }],
    ["a concurrency over 20", { flow_id: flowId, concurrency: 21 }],
    ["more than 1000 items without batches", { flow_id: flowId, max_items: 1001 }],
    ["batches that make more than 1000 child runs", { flow_id: flowId, max_items: 100_000, batch_size: 99 }],
    ["more than 100,000 items", { flow_id: flowId, max_items: 100_001, batch_size: 1000 }],
  ])("refuses %s", (_label, config) => {
    expect(loopNode.config.safeParse({ items: [], ...config }).success).toBe(false);
  });

  it("takes up to 100,000 items in batches that keep the child runs to 1000, naming the field that does not", () => {
    expect(loopNode.config.safeParse({ items: [], flow_id: flowId, max_items: 100_000, batch_size: 100 }).success).toBe(
      true,
    );
    const unbatched = loopNode.config.safeParse({ items: [], flow_id: flowId, max_items: 5000 });
    expect(unbatched.error?.issues).toEqual([
      expect.objectContaining({ path: ["max_items"], message: expect.stringContaining("set batch_size") }),
    ]);
  });
});
