import { z } from "zod";
import { NODE_ID_PATTERN } from "../../../core/contracts/flow-definition.js";
import { RUN_STATUSES, RUN_TRIGGERS } from "../../../core/contracts/run-flow.js";
import { NODE_COMPARISONS } from "../../../core/operations/replay-results.js";
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

/** POST /api/flows/{id}/replay's body: the draft, and the runs to replay. */
export const replayRequestSchema = z
  .strictObject({
    definition: z.unknown().optional().meta({
      description:
        "The draft: a flow definition, checked as a save checks one (the flow's current definition when absent)",
    }),
    last: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: "The flow's last N ended runs (at most REPLAY_MAX_RUNS, its default)" }),
    ids: z
      .array(runIdSchema)
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "Instead of last: these ended runs of the flow (at most REPLAY_MAX_RUNS)" }),
  })
  .refine((body) => !(body.last !== undefined && body.ids), { path: ["ids"], message: "give last or ids, not both" });

export const replayResponseSchema = z.object({
  operation_id: z.string(),
  status: z.literal("running"),
  total: z.number().int(),
  created_at: z.string(),
  version: z.number().int().meta({ description: "The flow's version the draft was replayed on" }),
});

const replayNodeSchema = z.object({
  node_id: z.string(),
  result: z.enum(NODE_COMPARISONS).meta({
    description:
      "same or changed (against the recorded output), new (no recorded output), failed (in the replay), missing (recorded, but not in the draft or not reached), skipped (neither has an output)",
  }),
  output: z.unknown().optional().meta({ description: "A changed node's output in the replay" }),
  recorded_output: z.unknown().optional().meta({ description: "A changed node's output in the recorded run" }),
});

const replayRunSchema = z.object({
  run_id: z.string().meta({ description: "The recorded run" }),
  replay_run_id: z.string().nullable().meta({ description: "Its replay: a test run (trigger replay)" }),
  item: z.string().meta({ description: "pending, started or skipped" }),
  reason: z.string().nullable().meta({ description: "Why it was skipped: an error code" }),
  status: z.string().nullable().meta({ description: "The replay run's status" }),
  recorded_status: z.string().nullable(),
  error: z.string().nullable().meta({ description: "The replay's error, when it did not succeed" }),
  counts: z.record(z.enum(NODE_COMPARISONS), z.number().int()),
  nodes: z.array(replayNodeSchema).meta({
    description: "Per node once the replay ended (empty before): the draft's nodes, then the recorded ones it lacks",
  }),
});

export const operationSchema = z
  .object({
    id: z.string(),
    kind: z.enum(["rerun", "replay"]),
    status: z.enum(["running", "completed", "cancelled"]),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    created_by: z.string().nullable().meta({ description: "The user or API token that asked for it" }),
    request: z.union([
      z.object({
        from_node: z.string().nullable(),
        from_failed: z.boolean(),
        version: z.enum(["run", "latest"]),
      }),
      z.object({
        flow_id: z.string(),
        version: z.number().int().meta({ description: "The flow's version the draft was replayed on" }),
        draft: z.boolean().meta({ description: "A draft was given (else the flow's current definition)" }),
      }),
    ]),
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
    replay: z
      .array(replayRunSchema)
      .optional()
      .meta({ description: "A replay's results: per replayed run a summary and per node a comparison" }),
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
