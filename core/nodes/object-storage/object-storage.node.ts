import { z } from "zod";
import { MAX_KEY_LENGTH, OBJECT_LIMITS } from "../shared/data-limits.js";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { checkOperationFields } from "../shared/operation-fields.js";

const OPERATIONS = ["put", "get", "list", "delete"] as const;
const ENCODINGS = ["text", "json", "base64"] as const;
type Encoding = (typeof ENCODINGS)[number];

const CONTENT_TYPE_OF: Record<Encoding, string> = {
  text: "text/plain; charset=utf-8",
  json: "application/json",
  base64: "application/octet-stream",
};

const fatal = (message: string) => new NodeError(message, { retryable: false });

// btoa and atob (web-standard) work on "binary strings"; chunks keep the argument lists short.
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw fatal("content is not valid base64");
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function encode(content: unknown, encoding: Encoding): Uint8Array {
  if (encoding === "json") return new TextEncoder().encode(JSON.stringify(content ?? null));
  if (typeof content !== "string") throw fatal(`content must be a string for encoding ${encoding}; use encoding json`);
  return encoding === "text" ? new TextEncoder().encode(content) : fromBase64(content);
}

/** How a stored object reads back by default: by its content type. */
function encodingFor(contentType: string): Encoding {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/")) return "text";
  return "base64";
}

function decode(body: Uint8Array, encoding: Encoding, key: string): unknown {
  if (encoding === "base64") return toBase64(body);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw fatal(`object "${key}" is not UTF-8 text; read it with encoding base64`);
  }
  if (encoding === "text") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fatal(`object "${key}" is not JSON; read it with encoding text or base64`);
  }
}

export const objectStorageNode = defineNode({
  type: "object_storage",
  version: 1,
  name: "Object storage",
  category: "data",
  description:
    "Puts, gets, lists or deletes objects (files) by key in the workspace's object storage; content is text, JSON or base64. Outputs { key, size, etag, content_type } (put), { key, found, content, … } (get), { items, next_after } (list) or { key, deleted } (delete).",
  kind: "activity",
  reachesOutside: true,
  config: z
    .object({
      operation: z.enum(OPERATIONS).meta({ label: "Operation" }),
      key: z
        .string()
        .min(1)
        .max(MAX_KEY_LENGTH)
        .optional()
        .meta({ label: "Key (put, get, delete)", placeholder: "reports/{{ run.id }}.json" }),
      content: z.unknown().optional().meta({ label: "Content (put)", placeholder: "{{ input }}" }),
      encoding: z.enum(ENCODINGS).optional().meta({ label: "Encoding of the content (put, get)", placeholder: "text" }),
      content_type: z
        .string()
        .min(1)
        .max(OBJECT_LIMITS.maxContentTypeLength)
        .optional()
        .meta({ label: "Content type (put)", placeholder: "text/csv" }),
      prefix: z.string().max(MAX_KEY_LENGTH).optional().meta({ label: "Key prefix (list)", placeholder: "reports/" }),
      limit: z
        .number()
        .int()
        .min(1)
        .max(OBJECT_LIMITS.maxListLimit)
        .optional()
        .meta({ label: "Limit (list)", placeholder: String(OBJECT_LIMITS.defaultListLimit) }),
      after: z
        .string()
        .min(1)
        .max(MAX_KEY_LENGTH)
        .optional()
        .meta({ label: "List keys after (list)", placeholder: "{{ nodes.previous.next_after }}" }),
    })
    .superRefine(
      checkOperationFields<(typeof OPERATIONS)[number]>({
        put: { required: ["key", "content"], optional: ["encoding", "content_type"] },
        get: { required: ["key"], optional: ["encoding"] },
        list: { optional: ["prefix", "limit", "after"] },
        delete: { required: ["key"] },
      }),
    ),
  async execute(_input, config, env) {
    const objects = env.objects;
    if (!objects) throw fatal("This runtime provides no object storage");
    switch (config.operation) {
      case "put": {
        const key = config.key!;
        // Strings are text unless told otherwise; anything else is JSON.
        const encoding = config.encoding ?? (typeof config.content === "string" ? "text" : "json");
        const contentType = config.content_type ?? CONTENT_TYPE_OF[encoding];
        const stored = await objects.put(key, encode(config.content, encoding), { contentType });
        return { key, size: stored.size, etag: stored.etag, content_type: contentType };
      }
      case "get": {
        const key = config.key!;
        const object = await objects.get(key);
        if (!object) return { key, found: false, content: null };
        const encoding = config.encoding ?? encodingFor(object.contentType);
        return {
          key,
          found: true,
          content: decode(object.body, encoding, key),
          encoding,
          content_type: object.contentType,
          size: object.size,
          etag: object.etag,
        };
      }
      case "list": {
        const limit = config.limit ?? OBJECT_LIMITS.defaultListLimit;
        const items = await objects.list({ prefix: config.prefix, limit, after: config.after });
        return {
          items: items.map((item) => ({
            key: item.key,
            size: item.size,
            content_type: item.contentType,
            etag: item.etag,
            updated_at: item.updatedAt,
          })),
          // A full page may have more after it: pass this as `after` to read on.
          next_after: items.length === limit ? items.at(-1)!.key : null,
        };
      }
      case "delete":
        return { key: config.key!, deleted: await objects.delete(config.key!) };
    }
  },
});
