// A test run of one node (the editor's "Test this node"): the node's own behaviour on a sample
// input, once, on a worker, in a workflow of its own. Nothing is recorded: no run, no step row,
// no log entry; the answer carries the output, or the error, and what the node logged.
import type { LogLevel } from "./log-levels.js";

export const NODE_TEST_WORKFLOW = "testNode";
/** Test workflows' ids start so (Temporal UI: `WorkflowId STARTS_WITH "nodetest_"`). */
export const NODE_TEST_ID_PREFIX = "nodetest_";

export interface NodeTestInput {
  testId: string;
  workspaceId: string;
  /** The flow whose node is tested, when the editor names one ({{ run.flowId }} renders it). */
  flowId: string | null;
  nodeId: string;
  type: string;
  config: Record<string, unknown>;
  /** The sample input: the node's input, and {{ trigger }} too. */
  input: unknown;
}

export interface NodeTestLogEntry {
  level: LogLevel;
  message: string;
  data?: unknown;
}

export interface NodeTestResult {
  status: "success" | "failed";
  output: unknown;
  branch: string | null;
  error: { message: string; type: string | null } | null;
  logs: NodeTestLogEntry[];
  duration_ms: number;
}

/** At most this many log entries come back from a test (the rest are counted in a last one). */
export const NODE_TEST_MAX_LOGS = 100;
