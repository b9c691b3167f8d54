// The product's equivalent of a no-op activity, for benchmarks: a node that returns its input.
// A custom node (CUSTOM_NODES_DIR=bench/nodes) for the service's own processes.
import { z } from "zod";
import { defineNode } from "../../core/nodes/define-node.js";

export default defineNode({
  type: "pass",
  version: 1,
  name: "Pass",
  category: "utility",
  description: "Returns its input.",
  kind: "activity",
  config: z.object({}),
  execute: async (input) => input,
});
