import { z } from "zod";
import { NODE_ID_PATTERN } from "../../../core/contracts/flow-definition.js";
import { LOG_LEVELS } from "../../../core/contracts/log-levels.js";
import { pageQueryFields } from "../../http/cursor.js";
import { runIdSchema } from "../runs/runs.schema.js";

export const listLogsQuerySchema = z.object({
  run_id: runIdSchema.optional(),
  /** The entries one node wrote (with run_id: in that run). */
  node_id: z.string().regex(NODE_ID_PATTERN, { message: "must be a node id" }).optional(),
  /** The least severe level returned: warn returns warn and error. */
  level: z.enum(LOG_LEVELS).optional(),
  ...pageQueryFields({ defaultLimit: 100, maxLimit: 500 }),
});

/** An entry of the execution log: written by log and debug nodes, a code node's console, env.log. */
export const logEntrySchema = z
  .object({
    id: z.string(),
    run_id: z.string().nullable(),
    node_id: z.string().nullable(),
    level: z.string().meta({ description: "debug, info, warn or error" }),
    message: z.string(),
    data: z.unknown(),
    created_at: z.string(),
  })
  .meta({ id: "LogEntry" });
