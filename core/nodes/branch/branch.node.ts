import { z } from "zod";
import { DEFAULT_BRANCH, selectCase } from "../shared/conditions.js";
import { defineNode } from "../define-node.js";

export const branchNode = defineNode({
  type: "branch",
  version: 1,
  name: "Branch",
  category: "logic",
  description:
    'Follows the edge labelled with the first case equal to the value, or "default"; nodes on other paths are skipped. Passes its input on unchanged.',
  kind: "control",
  execution: "local",
  config: z.object({
    value: z.unknown().meta({ label: "Value", placeholder: "{{ input.kind }}" }),
    cases: z
      .array(z.union([z.string().min(1).max(100), z.number(), z.boolean()]))
      .min(1)
      .max(50)
      .refine((cases) => new Set(cases.map(String)).size === cases.length, "cases must be distinct")
      .refine((cases) => !cases.map(String).includes(DEFAULT_BRANCH), `"${DEFAULT_BRANCH}" is reserved`)
      .meta({ label: "Cases", placeholder: '["order", "refund"]' }),
  }),
  branches: (config) => [...(config.cases as unknown[]).map(String), DEFAULT_BRANCH],
  decide: (input, config) => ({ output: input, branch: selectCase(config.value, config.cases) }),
});
