import { z } from "zod";
import { parseDuration } from "../../../lib/duration.js";
import { defineNode } from "../define-node.js";

const MAX_DELAY_MS = 30 * 86_400_000;

export const delayNode = defineNode({
  type: "delay",
  version: 1,
  name: "Delay",
  category: "utility",
  description:
    "Waits on a durable timer (survives restarts; nothing is held in memory), then passes its input on unchanged.",
  kind: "control",
  reachesOutside: true,
  execution: "local",
  config: z.object({
    duration: z
      .string()
      .refine((value) => {
        const ms = parseDuration(value);
        return ms !== undefined && ms <= MAX_DELAY_MS;
      }, "must be a duration such as 500ms, 30s, 5m, 2h or 1d, at most 30d")
      .meta({ label: "Duration", placeholder: "30s" }),
  }),
  waitMs: (config) => parseDuration(config.duration)!,
});
