// An example custom node. Point CUSTOM_NODES_DIR at this directory to install it: it appears in
// GET /api/nodes with official: false and runs like any other node. A custom node is one module
// whose default export is a defineNode(...) declaration; like every node it may use only
// web-standard APIs and what `env` hands it.
import { z } from "zod";
import { defineNode } from "../../core/nodes/define-node.js";

export default defineNode({
  type: "text_case",
  version: 1,
  name: "Text case",
  category: "data",
  description: "Changes the case of a text: upper, lower or title case. Output: { text }.",
  kind: "activity",
  config: z.object({
    text: z.string().max(100_000).meta({ label: "Text", placeholder: "{{ input.title }}" }),
    mode: z.enum(["upper", "lower", "title"]).default("upper").meta({ label: "Case" }),
  }),
  async execute(_input, config) {
    const text =
      config.mode === "upper"
        ? config.text.toUpperCase()
        : config.mode === "lower"
          ? config.text.toLowerCase()
          : config.text.toLowerCase().replace(/(^|\s)\p{L}/gu, (letter) => letter.toUpperCase());
    return { text };
  },
});
