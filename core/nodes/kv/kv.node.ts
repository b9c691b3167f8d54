import { z } from "zod";
import { KV_LIMITS, MAX_KEY_LENGTH } from "../shared/data-limits.js";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { checkOperationFields } from "../shared/operation-fields.js";

const OPERATIONS = ["get", "set", "delete"] as const;

export const kvNode = defineNode({
  type: "kv",
  version: 1,
  name: "Key-value store",
  category: "data",
  description:
    "Gets, sets or deletes a JSON value under a key in the workspace's key-value store; a value set with ttl_seconds expires. Outputs { key, value, found } (get), { key, value, ttl_seconds } (set) or { key, deleted } (delete).",
  kind: "activity",
  reachesOutside: true,
  config: z
    .object({
      operation: z.enum(OPERATIONS).meta({ label: "Operation" }),
      key: z
        .string()
        .min(1)
        .max(MAX_KEY_LENGTH)
        .meta({ label: "Key", placeholder: "customer:{{ input.customer_id }}" }),
      value: z.unknown().optional().meta({ label: "Value (set)", placeholder: "{{ input }}" }),
      ttl_seconds: z
        .number()
        .int()
        .min(1)
        .max(KV_LIMITS.maxTtlSeconds)
        .optional()
        .meta({ label: "Expires after, in seconds (set)", placeholder: "3600" }),
    })
    .superRefine(
      checkOperationFields<(typeof OPERATIONS)[number]>({
        get: {},
        set: { required: ["value"], optional: ["ttl_seconds"] },
        delete: {},
      }),
    ),
  async execute(_input, config, env) {
    const kv = env.kv;
    if (!kv) throw new NodeError("This runtime provides no key-value store", { retryable: false });
    const { key } = config;
    switch (config.operation) {
      case "get": {
        const value = await kv.get(key);
        return { key, value: value ?? null, found: value !== undefined };
      }
      case "set":
        await kv.set(key, config.value, { ttlSeconds: config.ttl_seconds });
        return { key, value: config.value, ttl_seconds: config.ttl_seconds ?? null };
      case "delete":
        return { key, deleted: await kv.delete(key) };
    }
  },
});
