import { z } from "zod";
import { flowIdSchema } from "../../../core/contracts/flow-definition.js";
import { LOG_LEVELS } from "../../../core/contracts/log-levels.js";
import { NODE_TEST_MAX_LOGS } from "../../../core/contracts/node-test.js";
import { NODE_CATEGORIES } from "../../../core/nodes/define-node.js";

export const catalogQuerySchema = z.object({ category: z.enum(NODE_CATEGORIES).optional() });

/** POST /api/nodes/test: one node, its config as the editor holds it, and a sample input. */
export const nodeTestSchema = z.strictObject({
  type: z.string().min(1).max(100),
  config: z.record(z.string(), z.unknown()).default({}),
  /** The node's input (and {{ trigger }}); null when absent. */
  input: z.unknown().optional(),
  /** The node's id in its flow (what {{ run.nodeId }} and its log entries show). */
  node_id: z.string().min(1).max(100).optional(),
  flow_id: flowIdSchema.optional(),
});

/** A field of a node's config form, generated from the node's zod config (core/nodes/define-node.ts). */
export const configFieldSchema = z
  .object({
    type: z.enum(["string", "number", "boolean", "json", "code"]),
    label: z.string(),
    required: z.boolean().optional(),
    default: z.unknown().optional(),
    placeholder: z.string().optional(),
    options: z.array(z.unknown()).optional().meta({ description: "The values of a field with a fixed set of them" }),
    credential_types: z
      .array(z.string())
      .optional()
      .meta({ description: "A credential id field: the credential types it takes" }),
    map: z
      .boolean()
      .optional()
      .meta({ description: "A json field of named entries (a set node's fields, headers), true when so" }),
  })
  .meta({ id: "ConfigField" });

const configSchemaSchema = z.record(z.string(), configFieldSchema);

/** An entry of GET /api/nodes, generated from a node declaration. */
export const catalogEntrySchema = z
  .object({
    id: z.string(),
    type: z.string(),
    name: z.string(),
    category: z.enum(NODE_CATEGORIES),
    description: z.string(),
    official: z.boolean(),
    version: z.number().int(),
    reaches_outside: z.boolean().meta({
      description:
        "The node reaches outside the run (the network, model providers, other runs, stored data, time or people): a replay against a draft takes its recorded output instead of running it",
    }),
    config_schema: configSchemaSchema,
    settings_schema: configSchemaSchema.meta({
      description: "The settings every node takes beside its config (timeout_ms, retry.*, on_error), keyed by path",
    }),
  })
  .meta({ id: "CatalogEntry" });

/** POST /api/nodes/test: how the node's one run went (core/contracts/node-test.ts). */
export const nodeTestResultSchema = z
  .object({
    test_id: z.string().meta({ description: "The test's workflow id (nodetest_…): where the Temporal UI shows it" }),
    status: z.enum(["success", "failed"]),
    output: z.unknown(),
    branch: z.string().nullable(),
    error: z.object({ message: z.string(), type: z.string().nullable() }).nullable(),
    logs: z.array(z.object({ level: z.enum(LOG_LEVELS), message: z.string(), data: z.unknown().optional() })).meta({
      description: `What the node logged (at most ${NODE_TEST_MAX_LOGS} entries, the rest counted in a last one)`,
    }),
    duration_ms: z.number(),
  })
  .meta({ id: "NodeTestResult" });
