import { z } from "zod";
import { defineNode } from "../define-node.js";

export const logNode = defineNode({
  type: "log",
  version: 1,
  name: "Log",
  category: "utility",
  description: "Writes an entry to the run's log (GET /api/logs) and passes its input on unchanged.",
  kind: "activity",
  execution: "local",
  config: z.object({
    level: z.enum(["debug", "info", "warn", "error"]).default("info").meta({ label: "Level" }),
    message: z.string().min(1).max(2000).meta({ label: "Message", placeholder: "Order {{ input.id }} received" }),
    data: z.unknown().optional().meta({ label: "Data" }),
  }),
  async execute(input, config, env) {
    await env.log(config.level, config.message, config.data);
    return input;
  },
});
