// flow.call against the real server: the child run gets the mapped input (or the node's own),
// links to its parent, and its output is the node's; its failure is the node's, which on_error
// can handle; a retried attempt or a second call in the same run makes no second child.
import { describe, expect, it } from "vitest";
import { testPrisma, testSeal } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { flowCallNode } from "./flow-call.node.js";

const flowId = "wf_0123456789abcdef01234567";

describe("flow.call node", () => {
  it("takes a flow id and an optional input, and refuses another id's shape", () => {
    expect(flowCallNode.config.parse({ flow_id: flowId })).toEqual({ flow_id: flowId });
    expect(flowCallNode.config.parse({ flow_id: flowId, input: { a: 1 } })).toEqual({
      flow_id: flowId,
      input: { a: 1 },
    });
    expect(flowCallNode.config.safeParse({ flow_id: "flow_1" }).success).toBe(false);
    expect(flowCallNode).toMatchObject({ kind: "control", category: "logic" });
  });

  describe("in a run", () => {
    const h = useRunHarness();

    it("runs the called flow as a child run with the mapped input and outputs its output", async () => {
      const child = await h.createFlow(
        flow([{ id: "greet", type: "test_echo", config: { value: "hello {{ input.who }}" } }], [["start", "greet"]]),
        "Greeter",
      );
      const parent = await h.createFlow(
        flow(
          [
            { id: "call", type: "flow.call", config: { flow_id: child, input: { who: "{{ input.name }}" } } },
            { id: "plain", type: "flow.call", config: { flow_id: child } },
            { id: "after", type: "test_echo", config: { value: "{{ nodes.call.value }} / {{ nodes.plain.value }}" } },
          ],
          [
            ["start", "call"],
            ["start", "plain"],
            ["call", "after"],
            ["plain", "after"],
          ],
        ),
      );
      const run = await h.runToEnd(parent, { name: "Ada", who: "Grace" });
      expect(run.status).toBe("success");
      expect(run.output).toMatchObject({ value: "hello Ada / hello Grace" });
      const children = await testPrisma().run.findMany({
        where: { parentRunId: run.id },
        orderBy: { startedAt: "asc" },
      });
      expect(children).toHaveLength(2);
      expect(children.every((c) => c.trigger === "flow.call" && c.flowId === child && c.status === "success")).toBe(
        true,
      );
      // The mapped input, and the node's own (its parent's output: the run's input).
      expect(children.map((c) => testSeal.open(c.input))).toEqual(
        expect.arrayContaining([{ who: "Ada" }, { name: "Ada", who: "Grace" }]),
      );
      // The parent's steps: one success each, the call's output the child's.
      const steps = await h.steps(run.id);
      expect(steps.find((s) => s.node_id === "call")).toMatchObject({
        status: "success",
        output: { value: "hello Ada" },
      });
    });

    it("fails with the child's failure, or passes it on with on_error continue", async () => {
      const broken = await h.createFlow(
        flow([{ id: "boom", type: "test_fail", config: { failures: 9, fatal: true } }], [["start", "boom"]]),
        "Broken",
      );
      const stops = await h.createFlow(
        flow([{ id: "call", type: "flow.call", config: { flow_id: broken } }], [["start", "call"]]),
      );
      const failed = await h.runToEnd(stops);
      expect(failed.status).toBe("failed");
      expect(JSON.stringify(failed.error)).toMatch(/flow Broken \(run run_\w+\) failed: planned failure 1 of 9/);

      const continues = await h.createFlow(
        flow(
          [
            { id: "call", type: "flow.call", config: { flow_id: broken }, on_error: "continue" },
            { id: "after", type: "test_echo", config: { value: "{{ nodes.call.error.code }}" } },
          ],
          [
            ["start", "call"],
            ["call", "after"],
          ],
        ),
      );
      const handled = await h.runToEnd(continues);
      expect(handled).toMatchObject({ status: "success", output: { value: "FlowCallFailed" } });
    });
  });
});
