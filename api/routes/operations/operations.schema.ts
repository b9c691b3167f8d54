import { z } from "zod";
import { NODE_ID_PATTERN } from "../../../core/contracts/flow-definition.js";
import { RUN_STATUSES, RUN_TRIGGERS } from "../../../core/contracts/run-flow.js";
import { flowIdSchema } from "../flows/flows.schema.js";
import { instantSchema, runIdSchema } from "../runs/runs.schema.js";

export const operationIdSchema = z.string().regex(/^op_[0-9a-f]{24}$/, { message: "must be an operation id (op_…)" });

/** POST /api/runs/rerun's body: where each rerun starts, the version, and the runs (ids or filters). */
export const bulkRerunRequestSchema = z
  .strictObject({
    ids: z
      .array(runIdSchema)
      .min(1)
      .max(10_000)
      .optional()
      .meta({ description: "The runs to rerun; or, instead, the runs list's filters below" }),
    flow_id: flowIdSchema.optional(),
    status: z.enum(RUN_STATUSES).optional(),
    trigger: z.enum(RUN_TRIGGERS).optional(),
    started_after: instantSchema.optional(),
    started_before: instantSchema.optional(),
    from_node: z
      .string()
      .regex(NODE_ID_PATTERN, { message: "must be a node id" })
      .optional()
      .meta({ description: "Each run from this node (it and what follows run again)" }),
    from_failed: z
      .literal(true)
      .optional()
      .meta({ description: "Each run from its own failed node (every success carried over)" }),
    version: z
      .enum(["run", "latest"])
      .default("latest")
      .meta({ description: "latest (default): the flow's current version, a fix saved since; run: each run's own" }),
  })
  .refine((body) => !(body.from_node && body.from_failed), {
    path: ["from_failed"],
    message: "give from_node or from_failed, not both (neither: each whole flow runs again)",
  })
  .refine(
    (body) =>
      !body.ids ||
      [body.flow_id, body.status, body.trigger, body.started_after, body.started_before].every((f) => f === undefined),
    { path: ["ids"], message: "give ids or filters, not both" },
  )
  .refine(
    (body) =>
      body.ids ||
      [body.flow_id, body.status, body.trigger, body.started_after, body.started_before].some((f) => f !== undefined),
    {
      path: ["ids"],
      message: "give ids or at least one filter (flow_id, status, trigger, started_after, started_before)",
    },
  );

export const operationSchema = z
  .object({
    id: z.string(),
    kind: z.literal("rerun"),
    status: z.enum(["running", "completed", "cancelled"]),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    created_by: z.string().nullable().meta({ description: "The user or API token that asked for it" }),
    request: z.object({
      from_node: z.string().nullable(),
      from_failed: z.boolean(),
      version: z.enum(["run", "latest"]),
    }),
    total: z.number().int().meta({ description: "The runs selected" }),
    counts: z
      .object({
        pending: z.number().int(),
        started: z.number().int(),
        skipped: z.number().int(),
        running: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        cancelled: z.number().int(),
      })
      .meta({
        description:
          "Items pending, started (a rerun recorded) and skipped; and the started reruns by their status: running, succeeded, failed, cancelled",
      }),
    skipped_reasons: z
      .record(z.string(), z.number().int())
      .meta({ description: "Skipped items per reason (an error code)" }),
    skipped: z
      .array(z.object({ run_id: z.string(), reason: z.string().nullable(), message: z.string().nullable() }))
      .meta({ description: "The first 100 skipped runs, with why" }),
  })
  .meta({ id: "Operation" });

export const bulkRerunResponseSchema = z.object({
  operation_id: z.string(),
  status: z.enum(["running", "completed", "cancelled"]).meta({
    description: "running when just asked; a repeat of an Idempotency-Key answers the operation as it is now",
  }),
  total: z.number().int(),
  created_at: z.string(),
});

/** GET /api/runs/failures's query. */
export const failuresQuerySchema = z.object({
  flow_id: flowIdSchema,
  started_after: instantSchema.optional().meta({ description: "Failures of runs started at or after this instant" }),
});

/** GET /api/runs/failures's answer. */
export const failureGroupsSchema = z.object({
  groups: z.array(
    z.object({
      node_id: z
        .string()
        .nullable()
        .meta({ description: "The node that failed (null: the run failed outside a node)" }),
      error: z.string().meta({ description: "The error (the first failure's, for one that came up from a child run)" }),
      count: z.number().int(),
      first_at: z.string(),
      last_at: z.string(),
      versions: z.array(z.number().int()).meta({ description: "The flow versions these runs ran" }),
      run_ids: z
        .array(z.string())
        .meta({ description: "The newest 100 runs of the group (ids for POST /api/runs/rerun)" }),
    }),
  ),
  runs: z.number().int().meta({ description: "The failed runs grouped" }),
  truncated: z.boolean().meta({ description: "Only the newest 2,000 failures were grouped" }),
});
