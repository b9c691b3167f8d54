import { z } from "zod";
import { defineNode } from "../define-node.js";
import { flowIdField } from "../shared/flow-id-field.js";

/** Child runs one loop starts at most: one per item, or one per batch with batch_size. */
export const LOOP_MAX_CHILDREN = 1000;
/** Items one loop takes at most with batch_size (in at most LOOP_MAX_CHILDREN batches). */
export const LOOP_MAX_BATCHED_ITEMS = 100_000;

export const loopConfig = z
  .object({
    items: z.unknown().meta({ label: "Items", placeholder: "{{ input.items }}" }),
    flow_id: flowIdField("Flow to run per item (or per batch)"),
    concurrency: z.number().int().min(1).max(20).default(5).meta({ label: "Concurrency" }),
    max_items: z.number().int().min(1).max(LOOP_MAX_BATCHED_ITEMS).default(100).meta({ label: "Maximum items" }),
    batch_size: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({ label: "Items per child run (batch size)", placeholder: "one child run per item" }),
  })
  .superRefine((config, ctx) => {
    // Without batches each item is a child run: the run tree's size bounds them.
    if (config.batch_size === undefined && config.max_items > LOOP_MAX_CHILDREN) {
      ctx.addIssue({
        code: "custom",
        path: ["max_items"],
        message: `at most ${LOOP_MAX_CHILDREN} without batch_size (a child run per item); set batch_size to run more`,
      });
    }
    if (config.batch_size !== undefined && Math.ceil(config.max_items / config.batch_size) > LOOP_MAX_CHILDREN) {
      ctx.addIssue({
        code: "custom",
        path: ["batch_size"],
        message: `${config.max_items} items in batches of ${config.batch_size} make more than ${LOOP_MAX_CHILDREN} child runs`,
      });
    }
  });
export type LoopConfig = z.infer<typeof loopConfig>;

export const loopNode = defineNode({
  type: "loop",
  version: 1,
  name: "Loop",
  category: "logic",
  description:
    "Runs another flow of the workspace once per item of an array (each a child workflow, at most `concurrency` at a time) and outputs their outputs in item order. With batch_size, once per batch of that many items instead: the child's input is {items, batch, first_index} and the output the children's outputs in batch order.",
  kind: "control",
  reachesOutside: true,
  config: loopConfig,
});
