// The shapes the dashboard reads from the API (see /docs for the whole document).

export interface Session {
  authenticated: true;
  user: { id: string; email: string; name: string };
  workspace: { workspaceId: string; name: string; role: string };
}

export type FieldType = "string" | "number" | "boolean" | "json" | "code";

export interface ConfigField {
  type: FieldType;
  label: string;
  required?: boolean;
  default?: unknown;
  placeholder?: string;
  options?: string[];
  /** A credential id field: the credential types it takes. */
  credential_types?: string[];
}

export type ConfigSchema = Record<string, ConfigField>;

export interface CatalogEntry {
  id: string;
  type: string;
  name: string;
  category: string;
  description: string;
  official: boolean;
  config_schema?: ConfigSchema;
  /** The settings every node takes beside its config (timeout_ms, retry.*, on_error), keyed by path. */
  settings_schema?: ConfigSchema;
}

export interface FlowListItem {
  id: string;
  name: string;
  status: "active" | "inactive" | "archived";
  version: number;
  updated_at: string;
  /** Only in GET /api/flows: the flow's newest run, null when it never ran. */
  last_run?: LastRun | null;
}

export interface LastRun {
  id: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

export interface FlowNode {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  position?: { x: number; y: number };
  [key: string]: unknown;
}

export interface FlowEdge {
  from: string;
  to: string;
  branch?: string;
}

export interface FlowDefinition {
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** A flow of the workspace to run when a run of this version fails. */
  error_flow_id?: string;
  /** Other top-level fields a builder stored: kept as they are. */
  [field: string]: unknown;
}

export interface FlowDetail extends FlowListItem {
  description: string;
  definition: FlowDefinition;
  hook: { path: string; live: boolean } | null;
  /** Present when the flow starts with a schedule node. */
  schedule?: ScheduleView | null;
}

export interface ScheduleView {
  id: string;
  cron?: string;
  interval?: string;
  timezone: string;
  paused: boolean | null;
  next_fire_times: string[] | null;
  error?: string;
}

export type RunStatus = "running" | "success" | "failed" | "cancelled";

/** What starts a run (GET /api/runs?trigger=). */
export const RUN_TRIGGERS = [
  "api",
  "http_trigger",
  "webhook",
  "schedule",
  "retry",
  "loop",
  "agent",
  "flow.call",
  "error_flow",
] as const;

export interface RunSummary {
  id: string;
  flow_id: string;
  flow_name: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  version: number;
  trigger: string;
}

export interface RunDetail extends RunSummary {
  output: unknown;
  error: unknown;
  retry_of: string | null;
  /** The run whose loop or flow.call node started this one. */
  parent_run_id?: string | null;
  temporal_url: string | null;
}

export interface Step {
  node_id: string;
  type: string;
  status: string;
  attempt: number;
  branch: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  /** The node's input, rebuilt by the API from the recorded outputs; null when input_unavailable says why. */
  input: unknown;
  input_unavailable: "not_run" | "upstream_pending" | "definition_missing" | null;
  output: unknown;
  error: unknown;
  /** In a retry, the run whose success this step took over (absent from APIs before it). */
  carried_over_from?: string | null;
}

/** A node of the flow version a run pinned, in the order the engine runs them. */
export interface RunNode {
  id: string;
  type: string;
  name: string | null;
  position: { x: number; y: number } | null;
  carried_over_from: string | null;
}

/** GET /api/runs/{id}/steps; `nodes` and `edges` are null when the run's version is gone. */
export interface RunSteps {
  items: Step[];
  nodes?: RunNode[] | null;
  edges?: Array<{ from: string; to: string; branch: string | null }> | null;
}

/** An entry of GET /api/logs: written by log and debug nodes, a code node's console, env.log. */
export interface LogEntry {
  id: string;
  run_id: string | null;
  node_id: string | null;
  level: string;
  message: string;
  data: unknown;
  created_at: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A stored credential as the API shows it: never a secret value. */
export interface Credential {
  id: string;
  name: string;
  type: string;
  fields: Record<string, unknown>;
  hint: string | null;
  default_for: string | null;
  created_at: string;
  created_by: string | null;
  updated_at: string;
  updated_by: string | null;
}
