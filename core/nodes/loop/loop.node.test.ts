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
    ["more than 1000 items", { flow_id: flowId, max_items: 1001 }],
  ])("refuses %s", (_label, config) => {
    expect(loopNode.config.safeParse({ items: [], ...config }).success).toBe(false);
  });
});
