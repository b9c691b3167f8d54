import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { AGENT_TOOLS } from "../../../core/contracts/agent-catalog.js";
import { AI_PROVIDERS } from "../../../core/ai/providers.js";
import { credentialIdSchema } from "../../../core/contracts/credential-types.js";
import { LOG_LEVELS } from "../../../core/contracts/log-levels.js";
import { mcpServersSchema } from "../../../core/contracts/mcp-servers.js";
import { modelFallbacksSchema } from "../../../core/contracts/model-fallbacks.js";

const TOOL_NAMES = AGENT_TOOLS.map((tool) => tool.name) as [string, ...string[]];

/** A preset id of the agent catalog, or a name of the workspace's own choosing (memory is scoped by it). */
const agentNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, _ and -, at most 63");

export const agentRunIdSchema = z.string().regex(/^agr_[0-9a-f]{24}$/, "must be an agent run id (agr_…)");

const agentLimitsSchema = z.strictObject({
  max_steps: z.number().int().min(1).max(100).optional(),
  max_tokens: z.number().int().min(100).max(5_000_000).optional(),
  timeout_ms: z
    .number()
    .int()
    .min(1000)
    .max(24 * 3_600_000)
    .optional(),
});

export const runAgentSchema = z
  .strictObject({
    agent: agentNameSchema.default("assistant"),
    instructions: z.string().trim().min(1).max(100_000).optional(),
    input: z.union([z.string().min(1).max(100_000), z.record(z.string(), z.unknown())]).optional(),
    tools: z.array(z.enum(TOOL_NAMES)).max(TOOL_NAMES.length).optional(),
    approval_tools: z.array(z.enum(TOOL_NAMES)).max(TOOL_NAMES.length).optional().meta({
      description:
        "Tools (among the run's) whose every call waits for a member's approval: the run pauses with the proposed arguments in the waits inbox; a rejection goes back to the model as the tool's result",
    }),
    provider: z.enum(AI_PROVIDERS).optional(),
    model: z.string().min(1).max(200).optional(),
    system: z.string().max(100_000).optional(),
    credential_id: credentialIdSchema
      .optional()
      .meta({ description: "An ai_provider credential of the provider: its key makes the model calls" }),
    limits: agentLimitsSchema.optional(),
    mcp_servers: mcpServersSchema.optional().meta({
      description:
        "MCP servers (Streamable HTTP) whose tools the agent may use besides its own, as <label>__<tool>; at most 5",
    }),
    fallbacks: modelFallbacksSchema.optional().meta({
      description:
        "Models tried in order (each once) when a model call's last attempt fails on a 429, a 408/409, a 5xx, a lost connection or a timeout; at most 3, each with an ai_provider credential of its provider or the server's key",
    }),
    /** Wait up to this many milliseconds for the answer. */
    wait: z.number().int().min(0).max(60_000).optional(),
  })
  .refine((body) => body.instructions !== undefined || body.input !== undefined, {
    message: "give instructions or input",
    path: ["instructions"],
  });

export const agentLogsQuerySchema = z.object({
  agent_run_id: agentRunIdSchema.optional(),
  agent: agentNameSchema.optional(),
  level: z.enum(LOG_LEVELS).optional(),
  ...pageQueryFields(),
});

const memoryKeySchema = z.string().min(1).max(200);

export const readMemoryQuerySchema = z.object({
  agent: agentNameSchema.default("assistant"),
  key: memoryKeySchema.optional(),
  prefix: z.string().max(200).optional(),
  ...pageQueryFields({ defaultLimit: 100, maxLimit: 500 }),
});

export const writeMemorySchema = z.strictObject({
  agent: agentNameSchema.default("assistant"),
  key: memoryKeySchema,
  value: z.unknown().refine((value) => value !== undefined, "is required"),
});

// The answers (core/agents/agent.service.ts builds them), named for web/src/api-types.ts.
const isoTime = z.string().meta({ description: "ISO 8601, UTC" });

const tokenUsageSchema = z
  .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() })
  .meta({ id: "TokenUsage" });

const agentRunLimitsSchema = z.object({
  max_steps: z.number().int(),
  max_tokens: z.number().int(),
  timeout_ms: z.number().int(),
});

export const agentRunSchema = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    status: z.enum(["running", "success", "failed", "cancelled"]),
    reason: z.string().nullable().meta({
      description: "Why it ended: answered, max_steps, max_tokens, timeout, provider_error, cancelled, …",
    }),
    answer: z.string().nullable(),
    error: z.object({ message: z.string() }).nullable(),
    provider: z.string(),
    model: z.string(),
    tools: z.array(z.string()),
    approval_tools: z.array(z.string()),
    limits: agentRunLimitsSchema,
    steps: z.number().int().meta({ description: "Model calls made" }),
    usage: tokenUsageSchema,
    cost: z.number().nullable().optional().meta({
      description:
        "US dollars its model calls cost at the workspace's prices (GET /api/agent/runs/{id}); null when none had a price",
    }),
    parent_run_id: z.string().nullable(),
    started_at: isoTime,
    finished_at: isoTime.nullable(),
    duration_ms: z.number().int().nullable(),
  })
  .meta({ id: "AgentRun" });

const agentStepSchema = z
  .object({
    number: z.number().int(),
    kind: z.enum(["model", "tool", "approval"]),
    name: z.string(),
    input: z.unknown(),
    output: z.unknown(),
    error: z.string().nullable(),
    usage: tokenUsageSchema,
    cost: z
      .number()
      .nullable()
      .meta({ description: "A model call's cost in US dollars; null for other steps or an unpriced model" }),
    started_at: isoTime,
    finished_at: isoTime,
    duration_ms: z.number().int(),
  })
  .meta({ id: "AgentStep" });

export const agentRunDetailSchema = z
  .object({ agent_run: agentRunSchema, steps: z.array(agentStepSchema) })
  .meta({ id: "AgentRunDetail" });

export const agentRunStartedSchema = z.object({
  agent_run_id: z.string(),
  status: z.literal("running"),
  status_url: z.string(),
});

export const agentRunEndedSchema = z.object({
  agent_run_id: z.string(),
  status: agentRunSchema.shape.status,
  reason: z.string().nullable(),
  answer: z.string().nullable(),
  error: z.object({ message: z.string() }).nullable(),
  steps: z.number().int(),
  usage: tokenUsageSchema,
  status_url: z.string(),
});

export const agentLogEntrySchema = z
  .object({
    id: z.string(),
    agent_run_id: z.string(),
    agent_id: z.string(),
    level: z.enum(LOG_LEVELS),
    message: z.string(),
    data: z.unknown(),
    created_at: isoTime,
  })
  .meta({ id: "AgentLogEntry" });

export const agentMemoryEntrySchema = z
  .object({
    agent_id: z.string(),
    key: z.string(),
    value: z.unknown(),
    agent_run_id: z.string().nullable(),
    written_by: z.string().nullable(),
    updated_at: isoTime,
  })
  .meta({ id: "AgentMemoryEntry" });

export const agentCatalogSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tools: z.array(z.enum(TOOL_NAMES)),
        system_prompt: z.string(),
        limits: agentRunLimitsSchema,
      }),
    ),
    tools: z.array(z.object({ name: z.enum(TOOL_NAMES), description: z.string() })),
  })
  .meta({ id: "AgentCatalog" });
