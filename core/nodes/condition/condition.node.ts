import { z } from "zod";
import { CONDITION_OPERATORS, evaluateCondition } from "../shared/conditions.js";
import { defineNode } from "../define-node.js";

export const conditionNode = defineNode({
  type: "condition",
  version: 1,
  name: "Condition",
  category: "logic",
  description:
    'Compares two values and follows the edge labelled "true" or "false"; nodes on the other path are skipped. Passes its input on unchanged.',
  kind: "control",
  execution: "local",
  config: z.object({
    left: z.unknown().meta({ label: "Value", placeholder: "{{ input.status }}" }),
    operator: z.enum(CONDITION_OPERATORS).default("equals").meta({ label: "Operator" }),
    right: z.unknown().optional().meta({ label: "Compare with", placeholder: "200" }),
  }),
  branches: () => ["true", "false"],
  decide: (input, config) => ({
    output: input,
    branch: String(evaluateCondition(config.left, config.operator, config.right)),
  }),
});
