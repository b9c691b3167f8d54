import { z } from "zod";
import { defineNode } from "../define-node.js";

export const debugNode = defineNode({
  type: "debug",
  version: 1,
  name: "Debug",
  category: "utility",
  description: "Records its input in the run's log at debug level and passes it on unchanged.",
  kind: "activity",
  execution: "local",
  config: z.object({
    label: z.string().max(200).optional().meta({ label: "Label", placeholder: "after fetch" }),
  }),
  async execute(input, config, env) {
    await env.log("debug", config.label ? `debug: ${config.label}` : "debug", { input });
    return input;
  },
});
