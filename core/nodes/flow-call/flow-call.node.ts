import { z } from "zod";
import { defineNode } from "../define-node.js";
import { flowIdField } from "../shared/flow-id-field.js";

export const flowCallConfig = z.object({
  flow_id: flowIdField("Flow to call"),
  input: z
    .unknown()
    .optional()
    .meta({ label: "Its input (empty: this node's input)", placeholder: '{ "order": "{{ input.id }}" }' }),
});
export type FlowCallConfig = z.infer<typeof flowCallConfig>;

export const flowCallNode = defineNode({
  type: "flow.call",
  version: 1,
  name: "Call flow",
  category: "logic",
  description:
    "Runs another flow of the workspace as a child run with the input given (or this node's input), waits for it and outputs its output; the child's failure is this node's (see on_error).",
  kind: "control",
  reachesOutside: true,
  config: flowCallConfig,
});
