import { z } from "zod";
import { FLOW_PRIORITY } from "./run-priority.js";

/** Limits of a flow definition; beyond them a save is refused with a clear problem. */
export const FLOW_LIMITS = {
  maxNodes: 200,
  maxEdges: 1000,
  maxDefinitionBytes: 512 * 1024,
  maxNodeTimeoutMs: 24 * 3_600_000,
  maxRetryAttempts: 20,
  /** Items of one node in flight at once (`items.concurrency`). */
  maxItemConcurrency: 100,
  /** Items one node starts per second at most (`items.rate_per_second`). */
  maxItemRatePerSecond: 10_000,
  /** Runs of one flow executing at once per key at most (`concurrency.limit`). */
  maxConcurrencyLimit: 1000,
  /** Characters of a concurrency key template. */
  maxConcurrencyKeyTemplate: 500,
  /** Characters of a priority template. */
  maxPriorityTemplate: 500,
  /** Runs of one flow starting per period per key at most (`throttle.limit`). */
  maxThrottleLimit: 1000,
  /** Shortest and longest throttle period (`throttle.period_ms`): a second, a day. */
  minThrottlePeriodMs: 1000,
  maxThrottlePeriodMs: 86_400_000,
  /** Shortest and longest quiet period of a debounce (`debounce.period_ms`): 100 ms, an hour. */
  minDebouncePeriodMs: 100,
  maxDebouncePeriodMs: 3_600_000,
  /**
   * How many periods a stream of starts may postpone a debounced run at most (`debounce.max_wait_ms`
   * is at most this many times `period_ms`): it bounds the run workflow's checks of its window,
   * hence its history (docs/engine.md, "Debounce windows").
   */
  maxDebounceWaitPeriods: 100,
  /** The longest `debounce.max_wait_ms`: a day. */
  maxDebounceWaitMs: 86_400_000,
} as const;

/** A flow's id as the service makes them (newId("wf")): in a definition, a node's config, a request. */
export const flowIdSchema = z.string().regex(/^wf_[0-9a-f]{24}$/, { message: "must be a flow id (wf_…)" });

export const NODE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export const retryPolicySchema = z.strictObject({
  /** Total attempts including the first; 1 means no retry. */
  max_attempts: z.number().int().min(1).max(FLOW_LIMITS.maxRetryAttempts).optional(),
  initial_interval_ms: z.number().int().min(100).max(3_600_000).optional(),
  backoff_coefficient: z.number().min(1).max(10).optional(),
  max_interval_ms: z
    .number()
    .int()
    .min(100)
    .max(24 * 3_600_000)
    .optional(),
});

/**
 * What a node's failure (after its last attempt) does to the run. stop: the run fails (the
 * default). continue: the node outputs `{ error: { message, code } }` and the run goes on.
 * branch: the same output, but only the edges leaving the node's error handle (`branch: "error"`)
 * run; on success only its other edges do.
 */
export const ON_ERROR_MODES = ["stop", "continue", "branch"] as const;

/**
 * What an item's failure does inside a node that runs per item (`items.on_error`). stop: the node
 * fails with that item's error (no item starts after it; the node's own on_error then applies).
 * skip: the item is recorded as failed and left out of the output. collect: the output holds
 * `{ error: { message, code } }` at the item's place.
 */
export const ITEM_ON_ERROR_MODES = ["stop", "skip", "collect"] as const;

/**
 * A node that runs once per item of an array, inside one activity (docs/flows.md, "Items"):
 * `from` is a template giving the array; its config's templates see each item as `{{ item }}`
 * and its place as `{{ item_index }}`.
 */
export const itemsSettingSchema = z.strictObject({
  from: z.union([z.string().min(1).max(10_000), z.array(z.unknown())]),
  concurrency: z.number().int().min(1).max(FLOW_LIMITS.maxItemConcurrency).optional(),
  rate_per_second: z.number().min(0.01).max(FLOW_LIMITS.maxItemRatePerSecond).optional(),
  on_error: z.enum(ITEM_ON_ERROR_MODES).optional(),
});

/**
 * A node of the graph. Unknown fields (a builder's `position`, colours, notes) are kept as they
 * are, so a dashboard can round-trip its own presentation data.
 */
export const flowNodeSchema = z.looseObject({
  id: z.string().regex(NODE_ID_PATTERN, {
    message: "must start with a letter and contain only letters, digits, _ and - (at most 64)",
  }),
  type: z.string().min(1).max(100),
  name: z.string().max(200).optional(),
  config: z.record(z.string(), z.unknown()).default({}),
  retry: retryPolicySchema.optional(),
  timeout_ms: z.number().int().min(100).max(FLOW_LIMITS.maxNodeTimeoutMs).optional(),
  on_error: z.enum(ON_ERROR_MODES).optional(),
  items: itemsSettingSchema.optional(),
});

export const flowEdgeSchema = z.looseObject({
  from: z.string().min(1),
  to: z.string().min(1),
  /**
   * The outgoing path of a branching node (condition: "true" / "false"; branch: a case), or
   * "error" for the error handle of a node with `on_error: "branch"`.
   */
  branch: z.string().min(1).max(100).optional(),
});

/**
 * A flow's priority: Temporal's priority key, 1 first (run-priority.ts), or a template over the
 * run's input giving one, rendered when a run starts (core/flows/priority-template.ts).
 */
export const flowPrioritySchema = z
  .union([
    z.number().int().min(FLOW_PRIORITY.highest).max(FLOW_PRIORITY.lowest),
    z.string().min(1).max(FLOW_LIMITS.maxPriorityTemplate),
  ])
  .meta({
    description:
      "1 (served first) to 5 (served last), or a template over the run's input giving one (e.g. {{ input.priority }}), rendered when a run starts; 3 when unset",
  });

/**
 * At most `limit` runs of the flow execute at once, per value of `key` (a template over the run's
 * input, rendered when the run starts), or in all when there is no key (core/flows/concurrency-key.ts).
 */
export const flowConcurrencySchema = z
  .strictObject({
    limit: z.number().int().min(1).max(FLOW_LIMITS.maxConcurrencyLimit),
    key: z.string().min(1).max(FLOW_LIMITS.maxConcurrencyKeyTemplate).optional(),
  })
  .meta({
    description:
      "At most `limit` runs of this flow execute at once, per value of `key` (a template over the run's input, e.g. {{ input.customer_id }}), or in all without a key; the others wait, queued, in arrival order",
  });

/**
 * At most `limit` runs of the flow start their first node per `period_ms`, per value of `key` (the
 * same template as concurrency's; with both set, both keys must be the same: one gate holds both).
 */
export const flowThrottleSchema = z
  .strictObject({
    limit: z.number().int().min(1).max(FLOW_LIMITS.maxThrottleLimit),
    period_ms: z.number().int().min(FLOW_LIMITS.minThrottlePeriodMs).max(FLOW_LIMITS.maxThrottlePeriodMs),
    key: z.string().min(1).max(FLOW_LIMITS.maxConcurrencyKeyTemplate).optional(),
  })
  .meta({
    description:
      "At most `limit` runs of this flow start per `period_ms` (1 s to 1 day), per value of `key` (a template over the run's input), or in all without a key; the others wait, queued, in arrival order. With `concurrency` too, both must have the same key",
  });

/**
 * Starts of the flow within `period_ms` of each other, per value of `key`, collapse into one run
 * with the last start's input; a stream of starts postpones the run by `max_wait_ms` at most
 * (core/runs/start/debounce.ts).
 */
export const flowDebounceSchema = z
  .strictObject({
    period_ms: z.number().int().min(FLOW_LIMITS.minDebouncePeriodMs).max(FLOW_LIMITS.maxDebouncePeriodMs),
    key: z.string().min(1).max(FLOW_LIMITS.maxConcurrencyKeyTemplate).optional(),
    max_wait_ms: z.number().int().optional(),
  })
  .superRefine((value, ctx) => {
    const most = Math.min(value.period_ms * FLOW_LIMITS.maxDebounceWaitPeriods, FLOW_LIMITS.maxDebounceWaitMs);
    const wait = value.max_wait_ms;
    // Checked once both numbers are whole (otherwise their own issue names them).
    if (!Number.isInteger(wait) || !Number.isInteger(value.period_ms)) return;
    if (wait! < value.period_ms || wait! > most) {
      ctx.addIssue({
        code: "custom",
        path: ["max_wait_ms"],
        message: `must be between period_ms and ${FLOW_LIMITS.maxDebounceWaitPeriods} × period_ms (at most a day)`,
      });
    }
  })
  .meta({
    description:
      "Starts of this flow within `period_ms` (100 ms to 1 h) of the previous one, per value of `key` (a template over the run's input), or in all without a key, collapse into one run with the last start's input; the run starts once no start came for `period_ms`, or `max_wait_ms` (period_ms to 100 × period_ms, 10 × period_ms when unset) after the first. Every start answers the run that carries it",
  });

/** How long a stream of starts may postpone a debounced run: `max_wait_ms`, else 10 periods (at most a day). */
export function debounceMaxWaitMs(setting: DebounceSetting): number {
  return setting.max_wait_ms ?? Math.min(setting.period_ms * 10, FLOW_LIMITS.maxDebounceWaitMs);
}

export const flowDefinitionSchema = z.looseObject({
  /** A flow of the same workspace to start when a run of this version fails (core/runs/start/error-flows.ts). */
  error_flow_id: flowIdSchema.optional(),
  /** Which runs Temporal serves first within their workspace's share of the queue (run-priority.ts). */
  priority: flowPrioritySchema.optional(),
  /** How many runs of the flow execute at once, per key (a gate workflow holds the slots). */
  concurrency: flowConcurrencySchema.optional(),
  /** How many runs of the flow start per period, per key (the same gate as concurrency's). */
  throttle: flowThrottleSchema.optional(),
  /** Starts close together, per key, collapse into one run with the last input (core/runs/start/debounce.ts). */
  debounce: flowDebounceSchema.optional(),
  nodes: z.array(flowNodeSchema).max(FLOW_LIMITS.maxNodes, { message: `at most ${FLOW_LIMITS.maxNodes} nodes` }),
  edges: z
    .array(flowEdgeSchema)
    .max(FLOW_LIMITS.maxEdges, { message: `at most ${FLOW_LIMITS.maxEdges} edges` })
    .default([]),
});

export type RetryPolicy = z.infer<typeof retryPolicySchema>;
export type ConcurrencySetting = z.infer<typeof flowConcurrencySchema>;
export type ThrottleSetting = z.infer<typeof flowThrottleSchema>;
export type DebounceSetting = z.infer<typeof flowDebounceSchema>;
export type ItemsSetting = z.infer<typeof itemsSettingSchema>;
export type ItemOnError = (typeof ITEM_ON_ERROR_MODES)[number];
export type FlowNode = z.infer<typeof flowNodeSchema>;
export type FlowEdge = z.infer<typeof flowEdgeSchema>;
export type FlowDefinition = z.infer<typeof flowDefinitionSchema>;

/**
 * A definition as the database holds it (a flow's or a version's `definition` column). Every one
 * was checked by flowDefinitionSchema when it was saved and is never changed in place, so it is
 * read as it is: the one place that says so, instead of a cast wherever a definition is read.
 */
export function storedDefinition(column: unknown): FlowDefinition {
  return column as FlowDefinition;
}
