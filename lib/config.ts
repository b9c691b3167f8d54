import { parseSecretKey } from "./crypto/secret-box.js";
import { parseKeyRing, type RingKey } from "./crypto/key-ring.js";
import { z } from "zod";
import { parseDuration } from "./duration.js";
import { checkAllowlist } from "./egress/address-policy.js";
import { ConfigError } from "./config-error.js";
import { readTemporalCredentials } from "./temporal/credentials.js";

// Configuration is parsed once per process from the environment. Every key is listed, with a
// comment, in .env.example; keep the two in step.

const port = z.coerce.number().int().min(0).max(65535);

const postgresUrl = z.string().refine((value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
  message: "expected a postgresql:// connection URL",
});

const isOrigin = (value: string) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === "https:" || url.protocol === "http:") &&
    url.pathname === "/" &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password &&
    !value.endsWith("?") &&
    !value.endsWith("#")
  );
};

const origin = z
  .string()
  .refine(isOrigin, { message: "expected an origin such as https://app.example.com (scheme, host and optional port)" })
  .transform((value) => new URL(value).origin);

const hostname = z
  .string()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i, {
    message: "expected a domain name such as example.com",
  })
  .transform((value) => value.toLowerCase());

const temporalAddress = z.string().regex(/^[^\s:/]+:\d{1,5}$/, { message: "expected host:port" });

/** A file the process reads (a certificate, a key): a path, checked when the process starts. */
const filePath = z.string().min(1);

/** The base URL of a Web UI: http(s), maybe under a path (a self-hosted UI's public path), no query. */
const baseUrl = z
  .string()
  .refine(
    (value) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && !url.search && !url.hash && !url.username;
    },
    { message: "expected an http(s) URL such as https://temporal.example.com or https://example.com/temporal" },
  )
  .transform((value) => new URL(value).href.replace(/\/+$/, ""));

const originList = z.string().transform((value, ctx) => {
  const origins = value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const wrong = origins.find((candidate) => !isOrigin(candidate));
  if (wrong !== undefined) {
    ctx.addIssue({ code: "custom", message: `"${wrong}" is not an origin such as https://cloud.temporal.io` });
    return z.NEVER;
  }
  return origins.map((candidate) => new URL(candidate).origin);
});

/** A duration such as `30s` or `24h`, as milliseconds. */
const duration = z
  .string()
  .refine((value) => parseDuration(value) !== undefined, { message: "expected a duration such as 30s, 5m, 24h or 7d" })
  .transform((value) => parseDuration(value)!);

const positiveInt = z.coerce.number().int().min(1);

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // json, or pretty (one human line per entry); unset: pretty in development when stdout is a
  // terminal, else json (pipes, files, log collectors, production).
  LOG_FORMAT: optional(z.enum(["json", "pretty"])),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(3000),
  DATABASE_URL: postgresUrl,
  TEMPORAL_ADDRESS: temporalAddress.default("127.0.0.1:7233"),
  TEMPORAL_NAMESPACE: z.string().min(1).default("default"),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default("svc-flows"),
  // A workflow bundle built beforehand (a file Temporal's bundleWorkflowCode wrote from
  // worker/workflows, as `npm run build` does): workers load it instead of bundling their
  // workflows at start (seconds of CPU per process). Unset: the compiled build's own bundle, else
  // a bundle made at start. Ignored with tracing on (its interceptors need a bundle made at start).
  WORKFLOW_BUNDLE: optional(filePath),
  // TLS to Temporal's frontend (lib/temporal/connection.ts): on when a TLS file or an API key is
  // set; TEMPORAL_TLS=true alone trusts the system's CAs (Temporal Cloud). CA, client certificate
  // and key are PEM files; the certificate and key come together (mTLS).
  TEMPORAL_TLS: optional(z.stringbool()),
  TEMPORAL_TLS_CA: optional(filePath),
  TEMPORAL_TLS_CERT: optional(filePath),
  TEMPORAL_TLS_KEY: optional(filePath),
  // The name the server's certificate must carry when it differs from TEMPORAL_ADDRESS's host (SNI).
  TEMPORAL_TLS_SERVER_NAME: optional(
    z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i, "expected a host name"),
  ),
  // An API key (Temporal Cloud), as a value or a file; the file is read again when it changes.
  TEMPORAL_API_KEY: optional(z.string().min(1)),
  TEMPORAL_API_KEY_FILE: optional(filePath),
  // How often the TLS files and TEMPORAL_API_KEY_FILE are checked for a renewal.
  TEMPORAL_CREDENTIALS_RELOAD_INTERVAL: duration
    .prefault("1m")
    .refine((ms) => ms >= 1000 && ms <= 86_400_000, { message: "must be between 1s and 24h" }),
  // The Temporal Web UI (links to runs): the dev server's, a self-hosted one (maybe under a path),
  // or Temporal Cloud's https://cloud.temporal.io.
  TEMPORAL_UI_URL: optional(baseUrl),
  // Origins whose pages may call the codec endpoint (CORS, with credentials); default: TEMPORAL_UI_URL's.
  TEMPORAL_CODEC_ORIGINS: optional(originList),
  // The dashboard's origin: allowed to call the API with cookies (CORS), and the origin of the
  // links mails carry (required with SMTP_HOST, even when the API serves the dashboard itself).
  DASHBOARD_ORIGIN: optional(origin),
  DEVELOPER_PORTAL_ORIGIN: optional(origin),
  PARENT_DOMAIN: optional(hostname),
  // Express "trust proxy" value (e.g. loopback, 10.0.0.0/8, or a hop count); unset = trust none,
  // so X-Forwarded-For is ignored.
  TRUSTED_PROXIES: optional(z.string().min(1)),
  // Node outputs larger than this travel by reference (run_blobs), not through Temporal's history.
  RUN_OUTPUT_OFFLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1_500_000)
    .default(256 * 1024),
  // Step outputs larger than this are shown truncated by GET /api/runs/{id}/steps.
  STEP_OUTPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(256)
    .max(10_000_000)
    .default(64 * 1024),
  // Run trees (flow.call, loop, agents' flow.run, error flows): how many starts deep one may grow,
  // and how many runs it may hold besides its root. A workspace's settings may lower them.
  RUN_TREE_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(16),
  RUN_TREE_MAX_RUNS: z.coerce.number().int().min(1).max(1_000_000).default(5000),
  // Bulk reruns (POST /api/runs/rerun): how many runs one may select, how many reruns it starts per
  // second, and how many may be running in one workspace at once.
  BULK_RERUN_MAX_RUNS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  BULK_RERUN_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(20),
  BULK_RERUNS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100).default(3),
  // Replays against a draft (POST /api/flows/{id}/replay): how many runs one may select.
  REPLAY_MAX_RUNS: z.coerce.number().int().min(1).max(1000).default(20),
  // Nodes that run per item (their items setting): how many items one node may have, and how many
  // bytes they may hold as JSON. A workspace's settings may lower them.
  ITEMS_MAX_COUNT: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  ITEMS_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(32 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  // Largest object the object_storage node stores, in bytes.
  OBJECT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  // Object storage in this directory (a subdirectory per workspace); unset = in PostgreSQL.
  OBJECT_STORAGE_DIR: optional(z.string().min(1)),
  // Directory of custom node modules (*.node.ts|js|mjs), loaded by the API and the worker at start.
  CUSTOM_NODES_DIR: optional(z.string().min(1)),
  // Outbound calls (HTTP nodes, webhooks, model providers) reach public addresses only; this
  // comma-separated list of host names (*.example.com), IPs or CIDRs is the one way to a private one.
  EGRESS_ALLOWLIST: optional(
    z.string().superRefine((value, ctx) => {
      try {
        checkAllowlist(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
  ),
  // Ceilings of every outbound call; nodes may ask for less, never more.
  EGRESS_TIMEOUT: duration.prefault("5m"),
  EGRESS_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  EGRESS_MAX_REDIRECTS: z.coerce.number().int().min(0).max(5).default(5),
  // Language-model providers, named as their official SDKs name them. Keys here serve every
  // workspace without a key of its own; base URLs (operator-chosen, e.g. a local Ollama or a
  // gateway) are not subject to the egress guard. AI_REQUEST_TIMEOUT limits one model call.
  OPENAI_API_KEY: optional(z.string().min(1)),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).default("https://api.openai.com/v1"),
  ANTHROPIC_API_KEY: optional(z.string().min(1)),
  ANTHROPIC_BASE_URL: z.url({ protocol: /^https?$/ }).default("https://api.anthropic.com"),
  AI_REQUEST_TIMEOUT: duration.prefault("2m"),
  // Encrypts the workspaces' credentials and the Temporal payloads at rest (AES-256-GCM): `<id>:<key>`
  // entries, comma separated, each key 32 bytes as base64 or 64 hex digits. The first seals new
  // values, all open what they sealed (rotation: put a new key first, then npm run
  // credentials:reencrypt; keep the old one while Temporal holds payloads sealed under it).
  // Required with NODE_ENV=production; npm start makes one under .data/ when it is unset.
  SVC_ENCRYPTION_KEY: optional(
    z.string().transform((value, ctx): RingKey[] => {
      const keys = parseKeyRing(value);
      if (typeof keys !== "string") return keys;
      ctx.addIssue({ code: "custom", message: keys });
      return z.NEVER;
    }),
  ),
  // Before credentials, the key that sealed workspaces' provider keys: now only read, to open keys
  // stored then, until npm run credentials:reencrypt has moved them under SVC_ENCRYPTION_KEY.
  AI_KEYS_SECRET: optional(
    z.string().refine((value) => parseSecretKey(value) !== undefined, {
      message: "expected 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)",
    }),
  ),
  // What POST /api/agent/run uses when the request names no provider or model.
  AI_DEFAULT_PROVIDER: z.enum(["openai", "anthropic"]).default("openai"),
  AI_DEFAULT_MODEL: z.string().min(1).default("gpt-4o-mini"),
  // OpenTelemetry tracing: on when the OTLP/HTTP endpoint of a collector is set (the standard
  // variable names); spans go to <endpoint>/v1/traces.
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(z.url({ protocol: /^https?$/ })),
  OTEL_SERVICE_NAME: optional(z.string().min(1).max(100)),
  // Operator metrics (Prometheus text at /metrics) on ports of their own, on METRICS_HOST
  // (loopback by default: not for browsers). 0 turns one off.
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  // Largest body an inbound hook (/api/hooks/{token}) accepts; larger ones answer 413.
  HOOK_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  // Requests a minute one flow's hook accepts (all API processes together); more answer 429.
  HOOK_RATE_LIMIT: positiveInt.default(600),
  // Streamed answers (a sync hook with `stream`) one flow's hook may hold open at once in one API
  // process; more answer 429 with Retry-After. A stream's place is free again once it closes.
  HOOK_MAX_OPEN_STREAMS: positiveInt.default(100),
  // Requests a minute one workspace API token may make (all API processes together); more answer 429.
  API_TOKEN_RATE_LIMIT: positiveInt.default(600),
  // Test runs of drafts (POST /api/flows/{id}/test-runs) one workspace may start a minute (all API
  // processes together); more answer 429. Their nodes call out for real, so they are limited.
  TEST_RUN_RATE_LIMIT: positiveInt.default(60),
  // MCP tools (POST /api/mcp): the largest arguments a tools/call takes (as JSON), and how many runs
  // started through MCP one caller (an API token) may have running at once; more calls are refused.
  MCP_MAX_INPUT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(262_144),
  MCP_MAX_RUNNING_PER_CALLER: z.coerce.number().int().min(1).max(10_000).default(20),
  // Outgoing webhooks: waits before each retry (the spec's 30s,5m,30m: three retries), the limit
  // on each attempt, how long a rotated-out secret still signs, and how often the outbox is read.
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default("30s,5m,30m")
    .transform((value, ctx) => {
      const delays = value.split(",").map((part) => parseDuration(part.trim()));
      if (delays.length > 10 || delays.some((d) => d === undefined)) {
        ctx.addIssue({ code: "custom", message: "expected up to 10 comma-separated durations such as 30s,5m,30m" });
        return z.NEVER;
      }
      return delays as number[];
    }),
  WEBHOOK_TIMEOUT: duration
    .prefault("10s")
    .refine((ms) => ms >= 100 && ms <= 60_000, { message: "must be between 100ms and 60s" }),
  WEBHOOK_SECRET_GRACE: duration.prefault("24h"),
  // On SIGTERM/SIGINT the worker stops polling and gives running activities this long to finish
  // before cancelling them (they are retried on another worker).
  WORKER_SHUTDOWN_GRACE: duration.prefault("10s"),
  // Threads of each worker process running code nodes' JavaScript, off its event loop; a
  // workspace gets at most half of them (rounded up). About the number of cores.
  CODE_SANDBOX_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  // Processes of each worker process (and of the API's in-process worker) evaluating transform
  // nodes' JSONata, off its event loop; a workspace gets at most half of them (rounded up).
  EXPRESSION_SANDBOX_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
  // Events stay in the outbox this long after the dispatcher has turned them into deliveries
  // (events not yet dispatched are never purged).
  EVENT_RETENTION: duration.prefault("7d"),
  // Audit log rows (core/audit/) older than this many days are deleted by the API's housekeeping,
  // in bounded batches; 0 keeps them forever.
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(365),
  // Whether the API process also runs a worker of the task queue: runs it starts then begin in
  // that process at once (eager workflow start), without the server dispatching their first task.
  API_WORKER: z.stringbool().default(false),
  // Workflow tasks (and local activities) that worker runs at once; its pollers hold up to 10 of
  // them while they poll. A start finding none free is not eager: its first task waits in the
  // server's queue, behind the eager starts that keep taking slots as they free up (seconds under
  // load). Above the runs in flight, none waits there.
  API_WORKER_SLOTS: z.coerce.number().int().min(2).max(2000).default(200),
  // Whether this worker process reads the event outbox (several may; they share the work).
  WEBHOOK_DISPATCHER: z.stringbool().default(true),
  WEBHOOK_DISPATCH_INTERVAL: duration
    .prefault("1s")
    .refine((ms) => ms >= 50 && ms <= 60_000, { message: "must be between 50ms and 60s" }),
  // Mail (invites, owner offers, password resets) through an SMTP server; unset SMTP_HOST: no mail,
  // and each link is handed to whoever asked for it (a single-machine install). SMTP_TLS: starttls
  // (required, default port 587), tls (implicit TLS, 465) or none (plain, 25; a loopback relay).
  // SMTP_TLS_CA: PEM file of a private CA the server's certificate is checked against. Checked
  // together by requireMailSettings (MAIL_FROM and DASHBOARD_ORIGIN needed with SMTP_HOST).
  SMTP_HOST: optional(
    z.string().regex(/^[^\s/:@]+$|^\[[0-9a-f:.]+\]$/i, { message: "expected a host name or address" }),
  ),
  SMTP_PORT: optional(z.coerce.number().int().min(1).max(65535)),
  SMTP_TLS: z.enum(["starttls", "tls", "none"]).default("starttls"),
  SMTP_TLS_CA: optional(filePath),
  SMTP_USER: optional(z.string().min(1).max(512)),
  SMTP_PASSWORD: optional(z.string().min(1).max(1024)),
  // The sender of every mail: an address, maybe with a name ("svc <noreply@example.com>").
  MAIL_FROM: optional(
    z
      .string()
      .max(320)
      .regex(/^(?:[^<>\r\n"]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, {
        message: "expected an address such as noreply@example.com or svc <noreply@example.com>",
      }),
  ),
  // true: links go by mail only; the API refuses to start without SMTP_HOST, and never hands one out.
  MAIL_REQUIRED: z.stringbool().default(false),
  PASSWORD_HASH_ITERATIONS: z.coerce.number().int().min(100_000).max(10_000_000).default(600_000),
  SESSION_IDLE_TIMEOUT: duration
    .prefault("24h")
    .refine((ms) => ms >= 60_000 && ms <= 7 * 86_400_000, { message: "must be between 1m and 7d" }),
  LOGIN_RATE_WINDOW: duration.prefault("15m"),
  // Failed logins per account and source before delays start (core/sessions/login-throttle.ts).
  LOGIN_FREE_FAILURES: z.coerce.number().int().min(0).max(100).default(5),
  LOGIN_MAX_DELAY: duration
    .prefault("15m")
    .refine((ms) => ms >= 1000 && ms <= 86_400_000, { message: "must be between 1s and 24h" }),
  LOGIN_MAX_ATTEMPTS_PER_IP: positiveInt.default(100),
  // Requests to password reset links (read or used) per client address per 10 minutes.
  PASSWORD_RESET_MAX_REQUESTS_PER_IP: positiveInt.default(30),
  INVITE_MAX_REQUESTS_PER_IP: positiveInt.default(60),
});

export type Config = z.infer<typeof configSchema>;

/** What the user:create command needs from the configuration. */
export const passwordConfigSchema = configSchema.pick({ PASSWORD_HASH_ITERATIONS: true });

/** What the credentials' keys need (npm start checks the key ring it hands on; credentials:reencrypt). */
export const credentialKeysConfigSchema = configSchema.pick({ SVC_ENCRYPTION_KEY: true, AI_KEYS_SECRET: true });

/** Keys read only by `npm start` for the embedded database and Temporal dev server. */
export const startConfigSchema = z.object({
  EMBEDDED_POSTGRES_PORT: port.default(0),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_DEV_UI_PORT: port.default(8233),
  // Worker processes npm start runs (each restarted when it crashes).
  WORKERS: z.coerce.number().int().min(1).max(16).default(1),
});

export { ConfigError };

/** Parses the environment; the error names every wrong or missing key on one line. */
export function parseConfig(env: NodeJS.ProcessEnv): Config;
export function parseConfig<S extends z.ZodType>(env: NodeJS.ProcessEnv, schema: S): z.infer<S>;
export function parseConfig(env: NodeJS.ProcessEnv, schema: z.ZodType = configSchema): unknown {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join(".");
    const missing = issue.code === "invalid_type" && env[key] === undefined;
    return `${key}: ${missing ? "is required" : issue.message}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
}

/**
 * The API and the worker do not run in production without the key that seals the workspaces'
 * credentials: without it they could neither store nor use any.
 */
export function requireEncryptionKeyInProduction<C extends Pick<Config, "NODE_ENV" | "SVC_ENCRYPTION_KEY">>(
  config: C,
): C {
  if (config.NODE_ENV === "production" && !config.SVC_ENCRYPTION_KEY) {
    throw new ConfigError(
      'Invalid configuration: SVC_ENCRYPTION_KEY: is required when NODE_ENV=production (it encrypts the workspaces\' credentials: README, "Credentials")',
    );
  }
  return config;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The mail settings together: a mail server needs a sender and the dashboard's origin (the links'),
 * credentials come in pairs and never cross the network in clear, and MAIL_REQUIRED needs a server.
 */
export function requireMailSettings<C extends MailSettings>(config: C): C {
  const problems: string[] = [];
  if (config.SMTP_HOST) {
    if (!config.MAIL_FROM) problems.push("MAIL_FROM: is required with SMTP_HOST (the sender of the mails)");
    if (!config.DASHBOARD_ORIGIN) {
      problems.push("DASHBOARD_ORIGIN: is required with SMTP_HOST (the links in the mails start with it)");
    }
    if (config.SMTP_USER && config.SMTP_TLS === "none" && !LOOPBACK_HOST.test(config.SMTP_HOST)) {
      problems.push("SMTP_TLS: none would send SMTP_PASSWORD in clear to a host that is not loopback");
    }
  } else if (config.MAIL_REQUIRED) {
    problems.push("SMTP_HOST: is required with MAIL_REQUIRED=true (links go by mail only)");
  }
  if (!config.SMTP_USER !== !config.SMTP_PASSWORD) problems.push("SMTP_USER, SMTP_PASSWORD: set both or neither");
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}

export type MailSettings = Pick<
  Config,
  | "SMTP_HOST"
  | "SMTP_PORT"
  | "SMTP_TLS"
  | "SMTP_TLS_CA"
  | "SMTP_USER"
  | "SMTP_PASSWORD"
  | "MAIL_FROM"
  | "MAIL_REQUIRED"
  | "DASHBOARD_ORIGIN"
>;

/**
 * Loads .env (when present) and parses the configuration. On a bad value (or a Temporal TLS or
 * API key file that cannot be read or used) the process stops with one line naming the key, not a
 * stack trace.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  loadDotEnv();
  try {
    const config = requireMailSettings(requireEncryptionKeyInProduction(parseConfig(env)));
    readTemporalCredentials(config);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export function loadDotEnv(): void {
  try {
    process.loadEnvFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
