import { z } from "zod";
import { FLOW_STATUSES, RUN_STATUSES } from "../../../core/contracts/run-flow.js";
import { pageQueryFields } from "../../http/cursor.js";
import { flowDefinitionSchema } from "../../../core/contracts/flow-definition.js";
import { OVERLAP_POLICIES } from "../../../core/nodes/schedule/schedule.node.js";

const flowStatusSchema = z.enum(FLOW_STATUSES);

export { flowIdSchema } from "../../../core/contracts/flow-definition.js";

/** POST /api/workflows/{id}/run. */
export const startRunSchema = z.strictObject({
  /** The run's input: an object of flow-specific keys (default {}). */
  input: z.record(z.string(), z.unknown()).optional(),
});

/** The largest input a test run takes, in bytes of JSON (the whole body is bounded at 1 MB). */
export const TEST_RUN_MAX_INPUT_BYTES = 256 * 1024;

export const testRunSchema = z.strictObject({
  definition: z.unknown().optional().meta({
    description:
      "The draft: a flow definition, checked as a save checks one (the flow's saved current definition when absent); nothing is saved",
  }),
  input: z
    .record(z.string(), z.unknown())
    .refine((input) => Buffer.byteLength(JSON.stringify(input)) <= TEST_RUN_MAX_INPUT_BYTES, {
      message: `must be at most ${TEST_RUN_MAX_INPUT_BYTES} bytes of JSON`,
    })
    .optional()
    .meta({ description: "The trigger's input (default {})" }),
  pins: z
    .record(z.string().max(100), z.strictObject({ output: z.unknown(), branch: z.string().max(100).optional() }))
    .refine((pins) => Object.keys(pins).length <= 200, { message: "must pin at most 200 nodes" })
    .refine((pins) => Buffer.byteLength(JSON.stringify(pins)) <= TEST_RUN_MAX_INPUT_BYTES, {
      message: `must be at most ${TEST_RUN_MAX_INPUT_BYTES} bytes of JSON`,
    })
    .optional()
    .meta({
      description:
        'Pinned data: outputs (and branches) by node id; those nodes are not executed. A branching node (condition, branch, wait) names the branch it takes, one of its edge labels, as its steps record it; a node with on_error branch may name "error"; no other node names one. They live with the draft, never in a saved definition; a trigger cannot be pinned',
    }),
  until: z.string().max(100).optional().meta({ description: "Run to here: only this node and its ancestors run" }),
});

export const testRunResponseSchema = z.object({
  run_id: z.string(),
  status: z.literal("running"),
  started_at: z.string(),
  test: z.literal(true),
});

export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, { message: "must be printable ASCII without spaces" });

export const startRunResponseSchema = z.object({
  run_id: z.string(),
  status: z.literal("running"),
  started_at: z.string(),
});

const name = z.string().trim().min(1).max(200);
const description = z.string().max(2000);

/** A flow's tag: letters, digits and ` _.:-`, starting with a letter or digit; kept in lower case. */
export const tagSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.:-]*$/u, {
    message: "must be letters, digits, spaces and _.:- starting with a letter or digit",
  })
  .transform((tag) => tag.toLowerCase());

/** A flow's tags: at most 20, repeats dropped. */
const tags = z
  .array(tagSchema)
  .max(20)
  .transform((list) => [...new Set(list)])
  .meta({
    description: "Labels of the flow (at most 20, each kept in lower case); GET /api/flows?tag= filters by one",
  });

/** The definition is checked by validateFlowDefinition, which reports every problem at once. */
const definition = z.unknown().optional();

/** A new flow from a definition, or from a template (`template` instead of `definition`). */
export const createFlowSchema = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    status: flowStatusSchema.optional(),
    tags: tags.optional(),
    definition,
    template: z.string().min(1).max(100).optional(),
  })
  .superRefine(
    (body, ctx) => {
      if (body.template !== undefined) {
        if (body.definition !== undefined) {
          ctx.addIssue({ code: "custom", path: ["definition"], message: "give either a definition or a template" });
        }
        return;
      }
      if (body.definition === undefined) ctx.addIssue({ code: "custom", path: ["definition"], message: "is required" });
      if (body.name === undefined) ctx.addIssue({ code: "custom", path: ["name"], message: "is required" });
      // `when`: run even when other fields failed, so that every problem is reported at once;
      // not when the body is no object at all (nothing to look into).
    },
    { when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value) },
  );

export const updateFlowSchema = z.strictObject({
  /** The version this update edits; a stale one answers 409 with the current version. */
  version: z.number().int().min(1).meta({
    description:
      "The version this update edits: the published version, or with publish false the head (draft_version when the flow has a draft, else version); a stale one answers 409 with current_version",
  }),
  publish: z.boolean().optional().meta({
    description:
      "Whether a changed definition goes live at once (default true). False saves it as the flow's draft: a new version production does not run until POST /api/flows/{id}/publish",
  }),
  name: name.optional(),
  description: description.optional(),
  status: flowStatusSchema.optional(),
  tags: tags.optional(),
  definition,
  note: z
    .string()
    .trim()
    .max(500)
    .optional()
    .meta({ description: "What the change is, kept with the new version when the definition changes" }),
});

/** A version number in a body: as large as a version's path parameter may be (an int4 column). */
const bodyVersionNumber = z.number().int().min(1).max(1_000_000);

export const publishFlowSchema = z.strictObject({
  version: bodyVersionNumber.meta({
    description: "The saved version to publish (the draft, or an older one to roll back to)",
  }),
  published_version: bodyVersionNumber
    .optional()
    .meta({ description: "The published version the caller saw: another one published since answers 409" }),
});

export const listFlowsQuerySchema = z.object({
  status: flowStatusSchema.optional(),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Only flows whose name contains these words (case-insensitive)" }),
  tag: tagSchema.optional().meta({ description: "Only flows with this tag" }),
  ...pageQueryFields(),
});

/** GET /api/flows/{id}/versions: newest first. */
export const listVersionsQuerySchema = z.object({ ...pageQueryFields() });

export const versionNumberSchema = z.coerce.number().int().min(1).max(1_000_000);

/** The spec's Flow list item. */
const flowListItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: flowStatusSchema,
    version: z.number().int(),
    updated_at: z.string(),
  })
  .meta({ description: "The spec's Flow list item" });

/** The newest run of a flow (by started_at), as GET /api/flows lists it; null when it never ran. */
const lastRunSchema = z
  .object({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
  })
  .meta({ id: "LastRun" })
  .nullable()
  .meta({ description: "The flow's newest run, null when it never ran" });

/** GET /api/flows's item: the spec's list item and the flow's last run. */
export const flowsPageItemSchema = flowListItemSchema
  .extend({ tags: z.array(z.string()), draft_version: z.number().int().nullable(), last_run: lastRunSchema })
  .meta({ id: "FlowListItem", description: "An item of GET /api/flows: the spec's list item and its last run" });

/** A flow's definition as saved: checked by flowDefinitionSchema, whose defaults it holds. */
const flowDefinitionViewSchema = flowDefinitionSchema.meta({ id: "FlowDefinition" });

/** What GET /api/flows/{id} shows of a schedule node's Temporal Schedule. */
const scheduleViewSchema = z
  .object({
    id: z.string(),
    cron: z.string().optional(),
    interval: z.string().optional(),
    timezone: z.string(),
    overlap: z.enum(OVERLAP_POLICIES),
    paused: z.boolean().nullable().meta({ description: "null when Temporal did not answer (see error)" }),
    next_fire_times: z.array(z.string()).nullable(),
    recent_fire_times: z.array(z.string()).optional(),
    missing: z.literal(true).optional().meta({ description: "The schedule is not in Temporal" }),
    error: z.string().optional(),
  })
  .meta({ id: "ScheduleView" });

/** A flow with its definition (GET, POST and PUT /api/flows…). */
export const flowDetailSchema = flowListItemSchema
  .extend({
    description: z.string(),
    tags: z.array(z.string()),
    created_at: z.string(),
    definition: flowDefinitionViewSchema.meta({
      description: "The published version's definition: what production runs",
    }),
    draft_version: z.number().int().nullable().meta({
      description:
        "A saved version newer than the published one, not live until POST /api/flows/{id}/publish (GET /api/flows/{id}/versions/{n} has its definition); null: none",
    }),
    hook: z.object({ path: z.string(), node_id: z.string(), type: z.string(), live: z.boolean() }).nullable().meta({
      description: "The hook of a flow that starts with an HTTP trigger: where to call it, and whether it answers",
    }),
    schedule: scheduleViewSchema
      .nullable()
      .meta({ description: "The Temporal Schedule of a flow that starts with a schedule node" }),
  })
  .meta({ id: "FlowDetail" });

/** GET /api/flows/{id}/versions's item. */
export const flowVersionItemSchema = z
  .object({
    version: z.number().int(),
    created_at: z.string(),
    created_by: z.string().nullable().meta({ description: "Who saved it: a user's or an API token's id" }),
    author: z.string().nullable().meta({
      description: "Who saved it, in words: the user's name (or e-mail), or the API token's name; null when gone",
    }),
    note: z.string().nullable().meta({ description: "What its author said of the change" }),
  })
  .meta({ id: "FlowVersionItem" });

/** GET /api/flows/{id}/versions/{version}: one immutable version. */
export const flowVersionSchema = z
  .object({
    flow_id: z.string(),
    version: z.number().int(),
    definition: flowDefinitionViewSchema,
    created_at: z.string(),
    created_by: z.string().nullable(),
    author: z.string().nullable().meta({
      description: "Who saved it, in words: the user's name (or e-mail), or the API token's name; null when gone",
    }),
    note: z.string().nullable(),
  })
  .meta({ id: "FlowVersion" });
