// The one declaration of a node type: identity, catalog text, config schema and behaviour.
// The catalog served at /api/nodes is generated from these declarations.
import type { AiProvider, LanguageModels } from "../ai/language-models.js";
import { z } from "zod";
import type { RetryPolicy } from "../contracts/flow-definition.js";
import type { NodeSandbox } from "../sandbox/js-sandbox.contract.js";

export const NODE_CATEGORIES = ["ai", "integration", "data", "logic", "trigger", "utility"] as const;
export type NodeCategory = (typeof NODE_CATEGORIES)[number];

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Workspace-scoped key-value store handed to nodes. */
export interface KeyValueStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/**
 * fetch as nodes get it: a URL (no Request objects), optional per-call limits, and the headers
 * that carry a credential (dropped, like Authorization, when a redirect leads to another origin).
 */
export type NodeFetch = (
  url: string | URL,
  init?: RequestInit & { timeoutMs?: number; maxResponseBytes?: number; sensitiveHeaders?: readonly string[] },
) => Promise<Response>;

/** A filter on one field of a row: equality by default, or one operator. */
export type RowFilter = Record<string, unknown>;

/** Workspace-scoped tables of JSON rows; no SQL text from users reaches the database. */
export interface DataTables {
  insert(table: string, rows: Array<Record<string, unknown>>): Promise<Array<{ id: string } & Record<string, unknown>>>;
  query(
    table: string,
    options?: {
      where?: RowFilter;
      limit?: number;
      offset?: number;
      orderBy?: { field: string; direction?: "asc" | "desc" };
    },
  ): Promise<Array<{ id: string } & Record<string, unknown>>>;
  update(table: string, where: RowFilter, patch: Record<string, unknown>): Promise<number>;
  delete(table: string, where: RowFilter): Promise<number>;
}

/** Workspace-scoped blobs addressed by key. */
export interface ObjectStore {
  put(
    key: string,
    body: Uint8Array,
    options?: { contentType?: string },
  ): Promise<{ key: string; size: number; etag: string }>;
  get(key: string): Promise<{ body: Uint8Array; contentType: string; size: number; etag: string } | null>;
  list(options?: {
    prefix?: string;
    limit?: number;
    after?: string;
  }): Promise<Array<{ key: string; size: number; contentType: string; etag: string; updatedAt: string }>>;
  delete(key: string): Promise<boolean>;
}

/**
 * What a node may use besides web-standard APIs (the spec's edge-worker contract): no process
 * environment, no Node built-ins, no database client of its own.
 */
export interface NodeEnv {
  /** Writes an execution log entry of this run and node. */
  log(level: LogLevel, message: string, data?: unknown): Promise<void>;
  /**
   * The run and node being executed; `itemIndex` when the node runs per item (its items setting):
   * the item's place in the array, the same on every attempt.
   */
  run: { id: string; flowId: string; workspaceId: string; nodeId: string; attempt: number; itemIndex?: number };
  /** Database handle of the workspace (data tables); present when the runtime provides one. */
  db?: DataTables;
  /** Object storage of the workspace (blobs by key). */
  objects?: ObjectStore;
  /** Key-value store of the workspace. */
  kv?: KeyValueStore;
  /** The workspace's stored credentials, applied to requests without handing their values over. */
  credentials?: NodeCredentials;
  /**
   * API key of the AI provider the node's config names (`provider`), from the workspace's settings
   * or the server configuration.
   */
  apiKey?: string;
  /**
   * The key of another provider or ai_provider credential (a model fallback's), resolved as
   * `apiKey` is: the credential named, else the workspace's key, else the server's.
   */
  aiKey?(provider: AiProvider, credentialId?: string): Promise<string | undefined>;
  /**
   * True when this attempt is the node's last under its retry policy (a failure ends the node),
   * false while attempts remain or when they are unbounded.
   */
  lastAttempt?: boolean;
  /** Language-model calls (OpenAI-compatible chat completions or Anthropic Messages). */
  ai?: Pick<LanguageModels, "chat">;
  /**
   * fetch through the egress guard: the only way out to the network. It refuses private and
   * reserved destinations (EgressRefusedError), caps time and response size (EgressTimeoutError,
   * EgressLimitError) and follows at most 5 redirects, checking each hop.
   */
  fetch?: NodeFetch;
  /** User code and expressions off the event loop (code, transform); present on the worker. */
  sandbox?: NodeSandbox;
  /** Aborted when the node's time runs out or the run is cancelled. */
  signal: AbortSignal;
}

/**
 * A stored credential as a node uses it: applied to a request by the host, its values never
 * handed over, so they reach no output, error, step log or history unless a node copies them.
 */
export interface NodeCredential {
  readonly id: string;
  readonly type: string;
  /** The headers it sets (a node passes them to fetch as `sensitiveHeaders`). */
  readonly headerNames: readonly string[];
  /** Sets it on a request: a header, a query parameter, Basic auth, or an OAuth2 token it fetches. */
  apply(request: { url: URL; headers: Headers }): Promise<void>;
  /** After a 401: forgets a cached token; true when applying it again sends a new one. */
  renew(): boolean;
  /** `value` (text or JSON) with every secret value of the credential replaced by "[redacted]". */
  redact<T>(value: T): T;
}

/** The workspace's credentials, by id (`credential_id` in a node's config). */
export interface NodeCredentials {
  /** Fails the node (not retried) when the credential is gone or of a type not in `accepts`. */
  resolve(id: string, accepts: readonly string[]): Promise<NodeCredential>;
}

export type NodeExecutor<Config> = (input: unknown, config: Config, env: NodeEnv) => Promise<unknown>;

/** One item of a node that runs per item, as executeEach gets it: the item, and its rendered config. */
export interface EachItem<Config> {
  index: number;
  input: unknown;
  config: Config;
}

/** An item's outcome from executeEach: its result, or the error that failed it. */
export type EachOutcome = { value: unknown } | { error: unknown };

/**
 * Runs a chunk of items at once (the transform node: one sandbox message for the chunk rather
 * than one per item); answers one outcome per item, in their order.
 */
export type EachExecutor<Config> = (items: Array<EachItem<Config>>, env: NodeEnv) => Promise<EachOutcome[]>;

/**
 * trigger: an entry node; its output is the run's input.
 * activity: run by the worker as one Temporal activity, through `execute`.
 * control: run by the workflow itself (timers, branching, merging, child workflows).
 */
export type NodeKind = "trigger" | "activity" | "control";

/**
 * Where the node's activity runs. local: inside the workflow task, on the worker that runs the
 * workflow, with no round trip through the Temporal server (recorded in history as a local
 * activity marker); for nodes that finish in milliseconds and touch nothing outside our own
 * database (retries after a lost worker repeat them). remote: a regular activity dispatched by
 * the server, with its own retries, timeouts and heartbeats; for anything with outside side
 * effects or that may run long. Custom nodes are remote unless they declare otherwise.
 */
export type NodeExecution = "local" | "remote";

export interface NodeDefinition<Config extends Record<string, unknown> = Record<string, unknown>> {
  type: string;
  version: number;
  name: string;
  category: NodeCategory;
  description: string;
  /** False for custom nodes registered by an installation. */
  official: boolean;
  kind: NodeKind;
  /** See NodeExecution; remote when absent. */
  execution?: NodeExecution;
  /** Config schema; `.meta({ label, placeholder, code })` on each field feeds the catalog. */
  config: z.ZodObject;
  /** Outgoing edge labels of a branching node, for a given config. */
  branches?: (config: Config) => string[];
  execute?: NodeExecutor<Config>;
  /**
   * Pure computation (set, transform, code): execute's only effect is its output. Run per item,
   * such a node's items are evaluated in chunks with one record write per chunk; others' items each
   * have their record written before their slot takes the next item.
   */
  pure?: boolean;
  /** A pure node's chunk of items at once; absent, each item goes through execute. */
  executeEach?: EachExecutor<Config>;
  /**
   * Control nodes keep their behaviour here too; the workflow only schedules it. A branching
   * node's decision: the output it passes on and the edge label it follows (condition, branch).
   */
  decide?: (input: unknown, config: Config) => { output: unknown; branch: string };
  /** A merging node's output from its parents' outputs (by node id, `parents` in edge order). */
  combine?: (byParent: Record<string, unknown>, parents: string[], config: Config) => unknown;
  /** A waiting node's wait in milliseconds, from its rendered config (delay). */
  waitMs?: (config: Config) => number;
  /** Per-type defaults of the node's timeout and retry policy (a node's own values win). */
  defaults?: { timeoutMs?: number; retry?: RetryPolicy };
  /**
   * The node reaches outside the run: the network (HTTP, model providers, webhooks), other runs
   * (flow.call, loops, agents), the workspace's stored data, or time and people (delay, wait). A
   * replay against a draft never executes it: it takes the recorded run's output for the node
   * (core/runs/start/replay-run.ts). Custom nodes reach outside unless they declare false.
   */
  reachesOutside?: boolean;
  /**
   * Its model calls count against the workspace's and the flow's budgets (core/usage/budgets.ts):
   * while one is reached the node does not run, and its run waits for an admin (a budget wait).
   */
  budgeted?: boolean;
}

const TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

export function defineNode<S extends z.ZodObject>(
  definition: Omit<NodeDefinition<z.infer<S>>, "config" | "official"> & { config: S; official?: boolean },
): NodeDefinition {
  if (!TYPE_PATTERN.test(definition.type)) {
    throw new Error(`Node type "${definition.type}" must be lowercase words joined by _ or .`);
  }
  if ((definition.kind === "activity") !== (definition.execute !== undefined)) {
    throw new Error(`Node type "${definition.type}": activity nodes, and only they, have execute()`);
  }
  return { official: true, ...definition } as unknown as NodeDefinition;
}

/** Metadata a config field may carry through zod's `.meta()`. */
export interface ConfigFieldMeta {
  label: string;
  placeholder?: string;
  /** Shown as a code editor (type "code" in the catalog) and never rendered as a template. */
  code?: boolean;
  /**
   * A credential id field and the credential types the node accepts: checked when the flow is
   * saved, offered as a picker (`credential_types` in the catalog), never rendered as a template.
   */
  credential?: readonly string[];
  /**
   * Taken literally, never rendered as a template (like code and credential fields): for a value
   * that names where secrets go, such as an agent's MCP servers and their credentials.
   */
  literal?: boolean;
}

/** The spec's ConfigField, plus `options` for fields with a fixed set of values. */
export interface ConfigField {
  type: "string" | "number" | "boolean" | "json" | "code";
  label: string;
  required?: boolean;
  default?: unknown;
  placeholder?: string;
  options?: unknown[];
  /** A credential id field: the credential types it takes. */
  credential_types?: string[];
  /**
   * A json field of named entries (a record: a set node's fields, headers): the editor adds a
   * reference clicked in its input panel as a new entry rather than as the whole value.
   */
  map?: boolean;
}

export interface CatalogEntry {
  id: string;
  type: string;
  name: string;
  category: NodeCategory;
  description: string;
  official: boolean;
  version: number;
  /** See NodeDefinition.reachesOutside: a replay takes its recorded output instead of running it. */
  reaches_outside: boolean;
  config_schema: Record<string, ConfigField>;
}

type AnyZod = z.ZodType & { def: { type: string; innerType?: AnyZod; defaultValue?: unknown; entries?: object } };

/**
 * Config fields shown as code (`.meta({ code: true })`: JavaScript, JSONata). They are taken
 * literally, never rendered as templates, so run data can only reach code as its input and can
 * never become part of the code itself.
 */
export function literalFields(definition: NodeDefinition): ReadonlySet<string> {
  let fields = literalFieldsOf.get(definition.config);
  if (!fields) literalFieldsOf.set(definition.config, (fields = findLiteralFields(definition)));
  return fields;
}

// A type's literal fields, found once per config schema (a node per item asks for each item).
const literalFieldsOf = new WeakMap<z.ZodObject, ReadonlySet<string>>();

function findLiteralFields(definition: NodeDefinition): ReadonlySet<string> {
  return new Set(
    Object.entries(definition.config.shape)
      .filter(([key, schema]) => {
        const field = fieldOf(key, schema as AnyZod);
        // A credential chosen by run data could send a secret wherever that data says.
        return field.type === "code" || field.credential_types !== undefined || metaOf(schema as AnyZod)?.literal;
      })
      .map(([key]) => key),
  );
}

/** The config fields that name a credential, with the credential types each accepts. */
export function credentialFields(definition: NodeDefinition): Map<string, readonly string[]> {
  const fields = new Map<string, readonly string[]>();
  for (const [key, schema] of Object.entries(definition.config.shape)) {
    const types = fieldOf(key, schema as AnyZod).credential_types;
    if (types) fields.set(key, types);
  }
  return fields;
}

/** The field's `.meta()`, from the outermost wrapper (optional, default) that carries one. */
function metaOf(schema: AnyZod): Partial<ConfigFieldMeta> | undefined {
  let base: AnyZod | undefined = schema;
  while (base) {
    const meta = base.meta() as Partial<ConfigFieldMeta> | undefined;
    if (meta) return meta;
    base = base.def.innerType;
  }
  return undefined;
}

function fieldOf(key: string, schema: AnyZod): ConfigField {
  let base = schema;
  let meta = schema.meta() as Partial<ConfigFieldMeta> | undefined;
  let defaultValue: unknown;
  while (base.def.innerType) {
    if (base.def.type === "default") {
      const value = base.def.defaultValue;
      defaultValue = typeof value === "function" ? (value as () => unknown)() : value;
    }
    base = base.def.innerType;
    meta ??= base.meta() as Partial<ConfigFieldMeta> | undefined;
  }
  const kind = base.def.type;
  const type: ConfigField["type"] = meta?.code
    ? "code"
    : kind === "string" || kind === "enum"
      ? "string"
      : kind === "number" || kind === "int"
        ? "number"
        : kind === "boolean"
          ? "boolean"
          : "json";
  const field: ConfigField = { type, label: meta?.label ?? key };
  if (!schema.isOptional()) field.required = true;
  if (defaultValue !== undefined) field.default = defaultValue;
  if (meta?.placeholder) field.placeholder = meta.placeholder;
  if (kind === "enum" && base.def.entries) field.options = Object.values(base.def.entries);
  if (meta?.credential) field.credential_types = [...meta.credential];
  if (kind === "record") field.map = true;
  return field;
}

/** The catalog entry of a node type, generated from its declaration. */
export function catalogEntry(node: NodeDefinition): CatalogEntry {
  const config_schema: Record<string, ConfigField> = {};
  for (const [key, schema] of Object.entries(node.config.shape)) config_schema[key] = fieldOf(key, schema as AnyZod);
  return {
    id: node.type,
    type: node.type,
    name: node.name,
    category: node.category,
    description: node.description,
    official: node.official,
    version: node.version,
    reaches_outside: reachesOutside(node),
    config_schema,
  };
}

/** Whether a replay takes the node's recorded output rather than running it (NodeDefinition.reachesOutside). */
export const reachesOutside = (node: NodeDefinition): boolean => node.reachesOutside ?? !node.official;
