// A node's settings besides its config: timeout, retry policy and what its failure does. Each
// type has defaults (its own over its category's); a node of the definition may override them.
import type { ConfigField, NodeCategory, NodeDefinition } from "./define-node.js";
import { DEFAULT_ITEM_CONCURRENCY } from "../contracts/run-flow.js";
import { ITEM_ON_ERROR_MODES, ON_ERROR_MODES, type FlowNode, type RetryPolicy } from "../contracts/flow-definition.js";

const CATEGORY_DEFAULTS: Record<NodeCategory, { timeoutMs: number; retry: Required<RetryPolicy> }> = {
  trigger: { timeoutMs: 10_000, retry: policy(3, 1000, 2, 10_000) },
  logic: { timeoutMs: 30_000, retry: policy(3, 1000, 2, 10_000) },
  utility: { timeoutMs: 60_000, retry: policy(3, 1000, 2, 30_000) },
  data: { timeoutMs: 120_000, retry: policy(3, 1000, 2, 30_000) },
  integration: { timeoutMs: 300_000, retry: policy(5, 1000, 2, 60_000) },
  ai: { timeoutMs: 600_000, retry: policy(5, 2000, 2, 120_000) },
};

function policy(
  max_attempts: number,
  initial_interval_ms: number,
  backoff_coefficient: number,
  max_interval_ms: number,
) {
  return { max_attempts, initial_interval_ms, backoff_coefficient, max_interval_ms };
}

/** The type's own defaults over its category's. */
export function typeDefaults(type: NodeDefinition): { timeoutMs: number; retry: Required<RetryPolicy> } {
  const base = CATEGORY_DEFAULTS[type.category];
  return {
    timeoutMs: type.defaults?.timeoutMs ?? base.timeoutMs,
    retry: { ...base.retry, ...type.defaults?.retry },
  };
}

/** What a node of the definition runs with: its own values over its type's defaults. */
export function nodeSettings(
  node: Pick<FlowNode, "timeout_ms" | "retry">,
  type: NodeDefinition,
): { timeoutMs: number; retry: Required<RetryPolicy> } {
  const defaults = typeDefaults(type);
  return { timeoutMs: node.timeout_ms ?? defaults.timeoutMs, retry: { ...defaults.retry, ...node.retry } };
}

/**
 * The catalog's `settings_schema`: the settings every node takes beside its config, keyed by
 * their path in the node (`retry.max_attempts` is `{ "retry": { "max_attempts": … } }`), with
 * this type's defaults.
 */
export function settingsSchema(type: NodeDefinition): Record<string, ConfigField> {
  const { timeoutMs, retry } = typeDefaults(type);
  return {
    timeout_ms: { type: "number", label: "Timeout (ms)", default: timeoutMs },
    "retry.max_attempts": { type: "number", label: "Attempts", default: retry.max_attempts },
    "retry.initial_interval_ms": {
      type: "number",
      label: "First retry after (ms)",
      default: retry.initial_interval_ms,
    },
    "retry.backoff_coefficient": { type: "number", label: "Backoff", default: retry.backoff_coefficient },
    "retry.max_interval_ms": {
      type: "number",
      label: "Longest wait between retries (ms)",
      default: retry.max_interval_ms,
    },
    on_error: { type: "string", label: "On error", default: "stop", options: [...ON_ERROR_MODES] },
    // Only a node that runs in one activity can run per item (docs/flows.md, "Items").
    ...(type.kind === "activity"
      ? {
          "items.from": { type: "string", label: "Run once per item of", placeholder: "{{ input.rows }}" },
          "items.concurrency": { type: "number", label: "Items at once", default: DEFAULT_ITEM_CONCURRENCY },
          "items.rate_per_second": { type: "number", label: "Items started per second at most" },
          "items.on_error": {
            type: "string",
            label: "An item's failure",
            default: "stop",
            options: [...ITEM_ON_ERROR_MODES],
          },
        }
      : {}),
  };
}
