import { z } from "zod";
import { defineNode } from "../define-node.js";

export const MERGE_MODES = ["object", "array", "first"] as const;

export const mergeNode = defineNode({
  type: "merge",
  version: 1,
  name: "Merge",
  category: "logic",
  description:
    "Waits for every incoming path that runs, then combines their outputs: an object keyed by node id, an array in edge order, or the first output.",
  kind: "control",
  execution: "local",
  config: z.object({
    mode: z.enum(MERGE_MODES).default("object").meta({ label: "Combine as" }),
  }),
  // Works on outputs as they travel (references to large ones included): combining needs no loading.
  combine(byParent, parents, config) {
    if (config.mode === "array") return parents.map((id) => byParent[id]);
    if (config.mode === "first") return parents.length > 0 ? byParent[parents[0]!] : null;
    return byParent;
  },
});
