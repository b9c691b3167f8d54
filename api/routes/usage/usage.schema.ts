import { z } from "zod";
import { BUDGET_METRICS, BUDGET_PERIODS } from "../../../core/usage/budgets.js";
import { AI_PROVIDERS } from "../../../core/ai/providers.js";
import { flowIdSchema } from "../../../core/contracts/flow-definition.js";

const daySchema = z.iso.date({ message: "must be a day, YYYY-MM-DD" });

export const usageQuerySchema = z.object({
  from: daySchema.optional().meta({ description: "First day (UTC) included; default: 29 days before `to`" }),
  to: daySchema.optional().meta({ description: "Last day (UTC) included; default: today" }),
  flow_id: flowIdSchema.optional().meta({ description: "That flow's calls only" }),
});

const figures = {
  calls: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost: z.number().meta({ description: "US dollars, of the calls whose model has a price" }),
  unpriced_calls: z.number().int().meta({ description: "Calls of models without a price (not in `cost`)" }),
};

export const usageFiguresSchema = z.object(figures).meta({ id: "UsageFigures" });

export const workspaceUsageSchema = z
  .object({
    currency: z.literal("USD"),
    from: z.string(),
    to: z.string(),
    flow_id: z.string().nullable(),
    total: usageFiguresSchema,
    days: z.array(z.object({ day: z.string(), ...figures })).meta({ description: "Every day of the range, in order" }),
    flows: z.array(z.object({ flow_id: z.string().nullable(), flow_name: z.string().nullable(), ...figures })).meta({
      description: "Per flow (null: agent runs started through the API), the most expensive first (100 at most)",
    }),
    models: z
      .array(z.object({ provider: z.string(), model: z.string(), ...figures }))
      .meta({ description: "Per model, the most expensive first (100 at most)" }),
  })
  .meta({ id: "WorkspaceUsage" });

export const modelCallSchema = z
  .object({
    id: z.string(),
    node_id: z.string().nullable(),
    agent_run_id: z.string().nullable(),
    agent_step: z.number().int().nullable(),
    provider: z.string(),
    model: z.string(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost: z.number().nullable().meta({ description: "US dollars; null when the model has no price" }),
    created_at: z.string(),
  })
  .meta({ id: "ModelCall" });

export const runUsageSchema = z
  .object({
    run_id: z.string(),
    flow_id: z.string(),
    currency: z.literal("USD"),
    total: usageFiguresSchema,
    nodes: z.array(z.object({ node_id: z.string(), ...figures })),
    calls: z.array(modelCallSchema).meta({ description: "The run's model calls in order (500 at most)" }),
  })
  .meta({ id: "RunUsage" });

const perMtok = z.number().min(0).max(100_000);

export const priceSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    input_per_mtok: z.number().meta({ description: "US dollars per million input tokens" }),
    output_per_mtok: z.number().meta({ description: "US dollars per million output tokens" }),
    source: z.enum(["default", "workspace"]),
    default: z.object({ input_per_mtok: z.number(), output_per_mtok: z.number() }).nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "ModelPrice" });

export const setPriceSchema = z.strictObject({
  provider: z.enum(AI_PROVIDERS),
  model: z.string().min(1).max(200),
  input_per_mtok: perMtok.meta({ description: "US dollars per million input tokens" }),
  output_per_mtok: perMtok.meta({ description: "US dollars per million output tokens" }),
});

export const removePriceQuerySchema = z.object({
  provider: z.enum(AI_PROVIDERS),
  model: z.string().min(1).max(200),
});

/** The most a budget may be: a trillion tokens, or a trillion dollars. */
export const MAX_BUDGET_LIMIT = 1e12;

export const budgetSchema = z
  .object({
    id: z.string(),
    flow_id: z.string().nullable().meta({ description: "null: the whole workspace's budget" }),
    flow_name: z.string().nullable(),
    metric: z.enum(BUDGET_METRICS).meta({ description: "tokens (input plus output) or cost (US dollars)" }),
    period: z.enum(BUDGET_PERIODS).meta({ description: "A UTC day or a UTC month" }),
    limit: z.number(),
    spent: z.number().meta({ description: "What the current period has spent" }),
    reached: z.boolean().meta({ description: "Whether model calls now wait for an admin (spent is at the limit)" }),
    period_start: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Budget" });

export const setBudgetSchema = z
  .strictObject({
    flow_id: z
      .string()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .meta({ description: "A flow's budget; absent or null: the workspace's" }),
    metric: z.enum(BUDGET_METRICS),
    period: z.enum(BUDGET_PERIODS),
    limit: z
      .number()
      .positive()
      .max(MAX_BUDGET_LIMIT)
      .meta({ description: "Tokens (a whole number) or US dollars; calls wait once the period's spending reaches it" }),
  })
  .refine((budget) => budget.metric !== "tokens" || Number.isInteger(budget.limit), {
    path: ["limit"],
    message: "a token budget is a whole number of tokens",
  });

export const budgetIdSchema = z.string().regex(/^bud_[0-9a-f]{24}$/, { message: "must be a budget id (bud_…)" });
