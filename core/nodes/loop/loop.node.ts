import { z } from "zod";
import { defineNode } from "../define-node.js";
import { flowIdField } from "../shared/flow-id-field.js";

export const loopConfig = z.object({
  items: z.unknown().meta({ label: "Items", placeholder: "{{ input.items }}" }),
  flow_id: flowIdField("Flow to run per item"),
  concurrency: z.number().int().min(1).max(20).default(5).meta({ label: "Concurrency" }),
  max_items: z.number().int().min(1).max(1000).default(100).meta({ label: "Maximum items" }),
});
export type LoopConfig = z.infer<typeof loopConfig>;

export const loopNode = defineNode({
  type: "loop",
  version: 1,
  name: "Loop",
  category: "logic",
  description:
    "Runs another flow of the workspace once per item of an array (each a child workflow, at most `concurrency` at a time) and outputs their outputs in item order.",
  kind: "control",
  config: loopConfig,
});
