// The start of a flow.call step: one child run of the flow called, recorded, which the workflow
// then runs and waits for as it does a loop's children (core/nodes/loop/loop.start.ts).
import type { LoopStart } from "../../contracts/run-flow.js";
import { startLoop, type LoopStartDeps } from "../loop/loop.start.js";
import type { FlowCallConfig } from "./flow-call.node.js";

export const FLOW_CALL_TRIGGER = "flow.call";

export function startFlowCall(
  deps: LoopStartDeps,
  step: { runId: string; nodeId: string; workspaceId: string; input: unknown },
  config: FlowCallConfig,
): Promise<{ start: Omit<LoopStart, "attempt">; recorded: number }> {
  const input = config.input === undefined ? step.input : config.input;
  return startLoop(
    deps,
    step,
    { flow_id: config.flow_id, items: [input], concurrency: 1, max_items: 1 },
    { trigger: FLOW_CALL_TRIGGER, single: true },
  );
}
