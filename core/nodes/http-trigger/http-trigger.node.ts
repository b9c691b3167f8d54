// Entry nodes for flows started by HTTP requests at /api/hooks/{token}. The request (method,
// headers minus credentials, query, body) becomes the run's input. `webhook` is the same
// behaviour under the name the spec also lists; both share this one declaration of config.
import { z } from "zod";
import { parseDuration } from "../../../lib/duration.js";
import { hostPatternSchema } from "../../contracts/host-patterns.js";
import { defineNode } from "../define-node.js";
import type { HookTrigger } from "../../contracts/run-flow.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be an HTTP header name");

export const hookVerificationSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("none") }),
    z.object({
      type: z.literal("shared_secret"),
      header: headerName.default("X-Webhook-Secret"),
      secret: z.string().min(16).max(500),
    }),
    z.object({
      type: z.literal("hmac"),
      header: headerName.default("X-Signature"),
      secret: z.string().min(16).max(500),
      encoding: z.enum(["hex", "base64"]).default("hex"),
      prefix: z.string().max(50).default("sha256="),
      /** When set, the signed text is `<timestamp>.<raw body>` and stale timestamps are refused. */
      timestamp_header: headerName.optional(),
      tolerance_seconds: z.number().int().min(1).max(86_400).default(300),
    }),
  ])
  .default({ type: "none" });

export const hookTriggerConfig = z.object({
  methods: z.array(z.enum(METHODS)).min(1).default(["POST"]).meta({ label: "Accepted methods" }),
  body_type: z.enum(["json", "form", "text"]).default("json").meta({ label: "Body type" }),
  mode: z
    .enum(["async", "sync"])
    .default("async")
    .meta({ label: "Answer (async: at once; sync: with the run's result)" }),
  sync_timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(30_000)
    .default(10_000)
    .meta({ label: "Sync: longest wait for the result (ms)" }),
  stream: z.boolean().default(false).meta({
    label:
      "Sync: answer a caller that accepts text/event-stream as server-sent events, with the text of the run's agents as they write it",
  }),
  stream_timeout_ms: z
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(120_000)
    .meta({ label: "Stream: longest wait for the run's end (ms)" }),
  response: z.enum(["run", "output"]).default("run").meta({
    label:
      "Sync answer: run ({run_id, status, output, error}) or output (the flow's output as the response; {status_code, body, headers} picks the status)",
  }),
  /** Hosts a sync answer's Location may name (a relative one always may): no open redirect from our origin. */
  redirect_hosts: z.array(hostPatternSchema).max(50).optional().meta({
    label: "Sync answer: hosts a Location may redirect to (relative locations always may)",
    placeholder: "shop.example.com, *.example.com, shop.example.com:8443",
  }),
  verification: hookVerificationSchema.meta({ label: "Caller verification" }),
  dedupe: z
    .object({
      header: headerName.default("Idempotency-Key"),
      /** A dotted path into a JSON body (e.g. `event.id`), used when the header is absent. */
      body_path: z.string().max(200).optional(),
      /** How long a key keeps answering with its first run; a repeat after that starts a new run. */
      window: z
        .string()
        .max(20)
        .refine((value) => {
          const ms = parseDuration(value);
          return ms !== undefined && ms >= 1000 && ms <= 30 * 86_400_000;
        }, "a duration like 10m, 24h or 7d, from 1s to 30d")
        .default("24h"),
    })
    .default({ header: "Idempotency-Key", window: "24h" })
    .meta({ label: "Deduplication" }),
});

export type HookTriggerConfig = z.infer<typeof hookTriggerConfig>;

const description = (what: string) =>
  `${what} Starts the flow from an HTTP request to its hook URL (/api/hooks/{token}, shown in the flow's detail while the flow is active); the output is {method, headers, query, body}. Async mode answers 202 {run_id, status_url} once the run is durably started; sync mode waits up to sync_timeout_ms and answers 200 {run_id, status, output, error}, else 202.`;

export const httpTriggerNode = defineNode({
  type: "http_trigger",
  version: 1,
  name: "HTTP trigger",
  category: "trigger",
  description: description("Entry node for HTTP calls from other systems."),
  kind: "trigger",
  execution: "local",
  config: hookTriggerConfig,
});

export const webhookTriggerNode = defineNode({
  type: "webhook",
  version: 1,
  name: "Webhook",
  category: "trigger",
  description: description("Entry node for webhooks sent by other services (with shared-secret or HMAC verification)."),
  kind: "trigger",
  execution: "local",
  config: hookTriggerConfig,
});

export const HOOK_TRIGGER_TYPES: ReadonlySet<string> = new Set<HookTrigger>(["http_trigger", "webhook"]);
