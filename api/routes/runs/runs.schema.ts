import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { RUN_STATUSES, RUN_TRIGGERS } from "../../../core/contracts/run-flow.js";
import { NODE_ID_PATTERN } from "../../../core/contracts/flow-definition.js";
import { flowIdSchema } from "../flows/flows.schema.js";

export const runIdSchema = z.string().regex(/^run_[0-9a-f]{24}$/, { message: "must be a run id (run_…)" });

/** An ISO 8601 date-time with a zone (`Z` or an offset), so that a window means one instant everywhere. */
export const instantSchema = z.iso.datetime({
  offset: true,
  message: "must be an ISO 8601 date-time with a zone, e.g. 2026-03-01T00:00:00Z",
});

export const listRunsQuerySchema = z
  .object({
    flow_id: flowIdSchema.optional(),
    /** A run id, or its beginning: the dashboard's search box. */
    id: z
      .string()
      .regex(/^run_[0-9a-f]{1,24}$/, { message: "must be a run id (run_…) or its beginning, e.g. run_3fa8" })
      .optional()
      .meta({ description: "A run id, or its first characters (run_3fa8…): the runs whose id begins so" }),
    status: z.enum(RUN_STATUSES).optional(),
    /** What started the run. */
    trigger: z.enum(RUN_TRIGGERS).optional(),
    test: z.enum(["true", "false"]).optional().meta({
      description: "false: leave out test runs (replays against a draft, test runs of a draft); true: only them",
    }),
    /** Runs started at or after this instant. */
    started_after: instantSchema.optional(),
    /** Runs started before this instant (exclusive: windows can be laid end to end). */
    started_before: instantSchema.optional(),
    ...pageQueryFields(),
  })
  .refine(
    (query) =>
      !query.started_after ||
      !query.started_before ||
      Date.parse(query.started_after) < Date.parse(query.started_before),
    { path: ["started_before"], message: "must be later than started_after" },
  );

export const latestRunsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

const runStatusSchema = z.enum(RUN_STATUSES);

/** Where a queued run waits: a run's `queue`, and an item of GET /api/runs/queues. */
const runQueueFields = z.object({
  reason: z.string().meta({ description: 'Why it waits, e.g. "waiting for a concurrency slot of key acme"' }),
  key: z.string().meta({ description: "The key it waits under, hashed (sha256:…) when long; empty without a key" }),
  position: z.int().meta({ description: "Its place in the gate's queue: 1 is granted next" }),
});

/** Runs asked at once by GET /api/runs/queues: a page of the runs list at most. */
export const RUN_QUEUES_MAX_IDS = 50;

export const runQueuesQuerySchema = z.object({
  ids: z
    .string()
    .max(RUN_QUEUES_MAX_IDS * 30)
    .transform((value) => value.split(","))
    .pipe(z.array(runIdSchema).min(1).max(RUN_QUEUES_MAX_IDS))
    .meta({ description: `Run ids, comma separated, at most ${RUN_QUEUES_MAX_IDS}` }),
});

export const runQueuesSchema = z
  .object({
    items: z
      .array(runQueueFields.extend({ run_id: z.string() }))
      .meta({ description: "The asked runs that wait at their gate or debounce window; the others are left out" }),
  })
  .meta({ id: "RunQueues" });

/** What a run's list item and its page both show. */
const runBaseSchema = z.object({
  id: z.string(),
  flow_id: z.string(),
  flow_name: z.string(),
  status: runStatusSchema,
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  version: z.number().int(),
  trigger: z.string().meta({ description: "What started the run (the trigger filter of GET /api/runs lists them)" }),
  test: z.boolean().meta({
    description: "A test run: a replay against a draft (trigger replay) or a test run of a draft (trigger test)",
  }),
});

/** GET /api/runs's item. */
export const runListItemSchema = runBaseSchema
  .extend({
    rerun_of: z
      .string()
      .nullable()
      .meta({ description: "The run this one reruns (a rerun, or a retry: its special case)" }),
    reruns: z.number().int().meta({ description: "How many runs rerun or retry this one" }),
    error: z.string().nullable().meta({
      description:
        "Why it failed, in a line: the failed node and its message's first line (GET /api/runs/{id} has all)",
    }),
  })
  .meta({ id: "RunSummary" });

/** How a run was rerun (GET /api/runs/{id}'s `rerun`). */
const rerunRecordSchema = z
  .object({
    from: z.enum(["node", "failed", "start"]),
    version: z
      .enum(["run", "latest"])
      .meta({ description: "Whether it ran the original run's version or the flow's latest" }),
    of_version: z.number().int().meta({ description: "The version the original run ran" }),
    carried: z.array(z.string()).meta({ description: "The nodes carried over from the original run (not run again)" }),
    by: z.string().nullable().meta({ description: "Who reran it: a user's or an API token's id" }),
    overrides: z
      .object({ input: z.unknown().optional(), outputs: z.record(z.string(), z.unknown()).optional() })
      .nullable()
      .meta({ description: "What replaced the original run's data: the trigger's input, carried nodes' outputs" }),
    operation_id: z.string().nullable().meta({ description: "The bulk rerun that started it" }),
  })
  .meta({ id: "RerunRecord" });

/** GET /api/runs/{id}'s run. */
export const runDetailSchema = runBaseSchema
  .extend({
    output: z.unknown(),
    error: z.unknown(),
    retry_of: z.string().nullable(),
    rerun_of: z
      .string()
      .nullable()
      .meta({ description: "The run this one reruns (a rerun, or a retry: its special case)" }),
    rerun_from_node: z
      .string()
      .nullable()
      .meta({ description: "The node the rerun ran from; null when it ran from the failed node or the start" }),
    rerun: rerunRecordSchema.nullable(),
    parent_run_id: z.string().nullable().meta({ description: "The run whose loop or flow.call node started this one" }),
    temporal_url: z
      .string()
      .nullable()
      .meta({ description: "The run in the Temporal UI, when TEMPORAL_UI_URL is set" }),
    status: z.enum(RUN_STATUSES).meta({
      description:
        "queued: started, and waiting at its flow's concurrency or throttle gate (an extension of the interface's statuses); running once granted",
    }),
    queue: runQueueFields.nullable().meta({ description: "Where a queued run waits; null otherwise" }),
  })
  .meta({ id: "RunDetail" });

/** POST /api/runs/{id}/rerun's body. */
export const rerunRequestSchema = z
  .strictObject({
    from_node: z
      .string()
      .regex(NODE_ID_PATTERN, { message: "must be a node id" })
      .optional()
      .meta({ description: "The node to run again, with everything downstream of it; the rest is carried over" }),
    from_failed: z
      .literal(true)
      .optional()
      .meta({ description: "Carry over every node that succeeded and run the rest (what a retry does)" }),
    version: z
      .enum(["run", "latest"])
      .default("run")
      .meta({ description: "run: the version the run ran; latest: the flow's current version (node ids matched)" }),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Replaces the trigger's input (the run's own input when absent)" }),
    outputs: z
      .record(z.string().regex(NODE_ID_PATTERN, { message: "must be a node id" }), z.unknown())
      .optional()
      .meta({ description: "Replaces the recorded outputs of carried-over nodes, by node id" }),
  })
  .refine((body) => !(body.from_node && body.from_failed), {
    path: ["from_failed"],
    message: "give from_node or from_failed, not both (neither: the whole flow runs again)",
  });

/** Where a rerun starts, as a rerun's body says it: from_node, from_failed, or neither (the start). */
export const rerunFromBody = (body: { from_node?: string; from_failed?: true }) =>
  body.from_node ? { node: body.from_node } : body.from_failed ? ("failed" as const) : ("start" as const);

/** POST /api/runs/{id}/rerun's answer. */
export const rerunResponseSchema = z.object({
  run_id: z.string(),
  status: z.literal("running"),
  started_at: z.string(),
  rerun_of: z.string(),
  version: z.number().int().meta({ description: "The version the rerun runs" }),
});

/** POST /api/runs/{id}/retry. */
export const retryRunResponseSchema = z.object({
  run_id: z.string(),
  status: z.literal("running"),
  started_at: z.string(),
  retry_of: z.string(),
});

/** A value of the step log: as is, or `{truncated, bytes, preview?}` when large or stored apart. */
const stepValue = z.unknown();

/** One attempt of one node (GET /api/runs/{id}/steps). */
export const stepSchema = z
  .object({
    node_id: z.string(),
    type: z.string(),
    status: z.enum(["running", "success", "failed", "skipped"]),
    attempt: z.number().int(),
    branch: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    input: stepValue.meta({
      description:
        "The node's input, rebuilt from the run's input and its parents' recorded outputs by the engine's own " +
        "function; null when input_unavailable says why",
    }),
    input_unavailable: z
      .enum(["not_run", "upstream_pending", "definition_missing"])
      .nullable()
      .meta({
        description:
          "not_run: the node was skipped; upstream_pending: a parent's outcome is not recorded yet (shown once it is); " +
          "definition_missing: the run's flow version was deleted with its flow",
      }),
    output: stepValue,
    error: z.unknown(),
    carried_over_from: z
      .string()
      .nullable()
      .meta({
        description:
          "In a rerun or retry, the run whose successful step this one took over (the node did not run again; its row is " +
          "written when the rerun ends, with its end as its time); null for a step that ran",
      }),
  })
  .meta({ id: "Step" });

/** A node of the run's pinned flow version, as GET /api/runs/{id}/steps lists them. */
export const runNodeSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    name: z.string().nullable().meta({ description: "The name given in the editor; null when it has none" }),
    position: z
      .object({ x: z.number(), y: z.number() })
      .nullable()
      .meta({ description: "Where the editor placed the node; null when it has no position" }),
    carried_over_from: z.string().nullable().meta({
      description:
        "In a rerun or retry, the run whose success this node takes over (known before its step is recorded)",
    }),
  })
  .meta({ id: "RunNode" });

export const runEdgeSchema = z.object({ from: z.string(), to: z.string(), branch: z.string().nullable() });

/** GET /api/runs/{id}/steps. */
export const runStepsSchema = z
  .object({
    items: z.array(stepSchema),
    nodes: z
      .array(runNodeSchema)
      .nullable()
      .meta({
        description:
          "The nodes of the flow version the run pinned, in the order the engine runs them (each after its parents; " +
          "among nodes ready together, the one defined first): nodes with no step yet are still to run. Null when " +
          "that version is gone with its flow",
      }),
    edges: z.array(runEdgeSchema).nullable().meta({ description: "The edges of that version; null when it is gone" }),
  })
  .meta({ id: "RunSteps" });

/** A per-item node's progress (its items setting): items recorded done and failed of its total. */
export const itemsProgressSchema = z
  .object({
    node_id: z.string(),
    total: z.number().int(),
    done: z.number().int().meta({ description: "Items recorded with a result" }),
    failed: z.number().int().meta({ description: "Items recorded with an error" }),
    updated_at: z.string(),
  })
  .meta({ id: "ItemsProgress" });

export const runItemsProgressSchema = z.object({ nodes: z.array(itemsProgressSchema) });

/** GET /api/runs/{id}/items/{node_id}: a page of the node's items in index order. */
export const runItemsQuerySchema = z.object({
  ...pageQueryFields({ defaultLimit: 50, maxLimit: 500 }),
  status: z.enum(["success", "failed"]).optional(),
});

export const runItemSchema = z
  .object({
    index: z.number().int(),
    status: z.enum(["success", "failed"]),
    result: z.unknown().meta({ description: "The item's result (large ones as {truncated, bytes, preview})" }),
    error: z.object({ message: z.string(), code: z.string() }).nullable(),
    attempt: z.number().int(),
    finished_at: z.string(),
  })
  .meta({ id: "RunItem" });

export const runItemsPageSchema = z.object({
  node_id: z.string(),
  progress: itemsProgressSchema.nullable(),
  items: z.array(runItemSchema),
  next_cursor: z.string().nullable(),
});
