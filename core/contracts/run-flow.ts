// What the API, the runFlow workflow and its activities exchange: types, plus a few constants.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from "@temporalio/common";
import type { FlowDefinition, ItemOnError, RetryPolicy } from "./flow-definition.js";
import type { AgentRunInput } from "./agent-run.js";
import type { BudgetHold, WaitDecision } from "./waits.js";
import { operatorText } from "./operator-text.js";

export const RUN_FLOW_WORKFLOW = "runFlow";

/** Search attributes operators filter runs by in the Temporal UI (registered at start). */
export const SEARCH_ATTRIBUTES = { workspaceId: "SvcWorkspaceId", flowId: "SvcFlowId" } as const;
const workspaceIdKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.workspaceId, SearchAttributeType.KEYWORD);
const flowIdKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.flowId, SearchAttributeType.KEYWORD);

export function runSearchAttributes(workspaceId: string, flowId: string): SearchAttributePair[] {
  return [
    { key: workspaceIdKey, value: workspaceId },
    { key: flowIdKey, value: flowId },
  ];
}

/**
 * What starts a run (runs.trigger): the run endpoint (api), an inbound hook (its entry node's type:
 * http_trigger, webhook), a schedule, a retry, a rerun (from a node, or a bulk rerun's), a loop node
 * (its child runs), an agent's flow.run or an MCP client's tools/call (mcp), a replay of a
 * recorded run against a draft (a test run); the triggers GET /api/runs filters by.
 */
export const RUN_TRIGGERS = [
  "api",
  "http_trigger",
  "webhook",
  "schedule",
  "retry",
  "rerun",
  "loop",
  "agent",
  "flow.call",
  "error_flow",
  "cli",
  "mcp",
  "replay",
  "test",
] as const;
/** Every trigger a run records: `cli` is the operator's `svc runs start`. */
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
/** The triggers of inbound hooks: a hook's run records its entry node's type. */
export type HookTrigger = Extract<RunTrigger, "http_trigger" | "webhook">;

/** The states of a flow (the database's FlowStatus): only active flows run. */
export const FLOW_STATUSES = ["active", "inactive", "archived"] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/**
 * The states of a run (the database's RunStatus). queued: started, and waiting at its flow's
 * concurrency or throttle gate; running once granted (docs/engine.md, "Concurrency gates").
 */
export const RUN_STATUSES = ["running", "success", "failed", "cancelled", "queued"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The states of a run that has not ended: both may be cancelled, neither rerun nor deleted. */
export const UNENDED_RUN_STATUSES = ["running", "queued"] as const satisfies readonly RunStatus[];
/** Whether a run in `status` has ended (success, failed or cancelled). */
export const runHasEnded = (status: string): boolean => status !== "running" && status !== "queued";

/**
 * What the Temporal UI shows of a run: in its workflow list one line naming the flow, its version
 * and what started it (api, webhook, schedule, retry, loop, agent...); on its page the ids to
 * filter by. Operator text: the codec leaves it readable (core/contracts/operator-text.ts).
 */
export function runDisplay(run: {
  flowName: string;
  version: number;
  trigger: RunTrigger;
  flowId: string;
  workspaceId: string;
  parent?: string;
}): { staticSummary: string; staticDetails: string } {
  const details = [
    `**flow** ${run.flowId} (${SEARCH_ATTRIBUTES.flowId})`,
    `**workspace** ${run.workspaceId} (${SEARCH_ATTRIBUTES.workspaceId})`,
    ...(run.parent ? [`**started by** ${run.parent}`] : []),
  ];
  return {
    staticSummary: operatorText(`${run.flowName} v${run.version} · ${run.trigger}`),
    staticDetails: operatorText(details.join("\n\n")),
  };
}

/** Agent runs carry the workspace attribute only. */
export function agentSearchAttributes(workspaceId: string): SearchAttributePair[] {
  return [{ key: workspaceIdKey, value: workspaceId }];
}

/** How the workflow treats a node (from its type's declaration). */
export type NodeHandling =
  | "trigger" // outputs the run's input
  | "activity" // the node's execute() in an activity named after its type
  | "condition" // decides a branch: true / false
  | "branch" // decides a branch: a case or default
  | "merge" // combines its parents' outputs
  | "delay" // a durable timer
  | "wait" // a decision by a person or another system (a Temporal update), optionally with a timeout
  | "loop" // child runs of another flow, one per item
  | "agent"; // an agent run as a child workflow

export interface NodePlan {
  type: string;
  handling: NodeHandling;
  /**
   * "local": the node's activity runs inside the workflow task (its type declares it quick, see
   * NodeExecution). "workflow": no activity at all, the workflow resolves the node itself: a
   * trigger, whose output is the run's input (the API or the scheduler did its work before the
   * run started); plans made before had "local" for it, so runs started then replay as they ran.
   * Absent: a regular activity, as in every plan made before local nodes existed.
   */
  execution?: "local" | "workflow";
  /** How the Temporal UI names the node's activity: its id, and its name when it has one. */
  summary?: string;
  timeoutMs: number;
  retry: Required<RetryPolicy>;
  /**
   * What the node's failure does when it is not "stop" (the node's `on_error`): the workflow
   * records it as handled and goes on (NODE_ON_ERROR). Absent: the run fails, as in every plan
   * made before on_error existed.
   */
  onError?: "continue" | "branch";
  /**
   * The node runs once per item inside one regular activity (its `items` setting): it heartbeats
   * its progress, so a lost worker is noticed soon and a retry resumes after the items done.
   */
  items?: true;
}

/** Items of a node in flight at once when its items setting names no concurrency. */
export const DEFAULT_ITEM_CONCURRENCY = 10;

/** A node that runs per item, as its activity gets it: the setting with its defaults filled in. */
export interface ItemsRun {
  /** A template giving the array, or the array itself. */
  from: string | unknown[];
  concurrency: number;
  ratePerSecond?: number;
  onError: ItemOnError;
  /** The node's attempts at most: an item failing retryably at the last one fails for good. */
  maxAttempts: number;
}

/** What a per-item node heartbeats: its progress (the items' records are in run_items). */
export interface ItemsProgress {
  total: number;
  done: number;
  failed: number;
  /** Every item below this index is recorded. */
  flushedBelow: number;
}

export interface RunFlowInput {
  runId: string;
  workspaceId: string;
  flowId: string;
  flowName: string;
  version: number;
  /** The pinned definition: the workflow's history shows exactly what ran. */
  definition: FlowDefinition;
  plan: Record<string, NodePlan>;
  input: unknown;
  startedAt: string;
  /**
   * A retry or rerun of an earlier run: the nodes carried over from it, with their output and
   * branch; the workflow never runs them (core/runs/rerun/carry-plan.ts).
   */
  reuse?: Record<string, { output: unknown; branch?: string }>;
  /**
   * A replay against a draft (a test run): the nodes that reach outside the run, each given the
   * recorded run's output (`output` absent: the recorded run has none, and the node fails with
   * REPLAY_NO_RECORDING). Unlike `reuse`, a given node may sit anywhere in the graph: it is
   * resolved when its parents are, and skipped as any node is when no incoming edge is active.
   */
  given?: Record<string, { output?: unknown; branch?: string }>;
  /**
   * A flow with `concurrency`: the gate (its workflow id) its starter asks for the run's slot
   * right after starting the workflow, so that the gate hears of runs in the order they were
   * started; the workflow asks itself only if no grant comes within a minute (the starter stopped
   * in between). Absent: the workflow asks before its first node (child runs, error flows).
   */
  gateId?: string;
  /**
   * A flow with `concurrency` whose start took a free slot in PostgreSQL
   * (core/engine/concurrency-slots.ts): the run never meets the gate, and the statement that
   * ends its record frees the slot. Absent: the run takes its slot from the gate.
   */
  dbSlot?: boolean;
  /**
   * A run that opened a debounce window (core/runs/start/debounce.ts): before anything else its
   * workflow waits for the window to close and runs with the last input the window took. Absent
   * for every other run, the flow's debounce notwithstanding (test runs, retries, child runs).
   */
  debounce?: RunDebounce;
  /**
   * The run's priority (1 to 5) as its starter rendered the definition's `priority` over its input
   * (core/flows/priority-template.ts): what runPriority tells Temporal. Absent in histories of
   * before it: the definition's number, or the default.
   */
  priority?: number;
}

/** The debounce window a run waits for: its key's hash and the flow's periods. */
export interface RunDebounce {
  keyHash: string;
  periodMs: number;
  maxWaitMs: number;
}

/** The error type of a node a replay does not run and whose recorded run has no output for it. */
export const REPLAY_NO_RECORDING = "replay_no_recording";

export type RunOutcome = "success" | "failed" | "cancelled";

export interface RunError {
  message: string;
  node_id?: string;
  type?: string;
  /**
   * Where a failure that came up from a child run started: the run and node that failed first,
   * with their message. Each level names it once, so no error text holds its children's errors.
   */
  origin?: RunErrorOrigin;
}

export interface RunErrorOrigin {
  run_id: string;
  node_id?: string;
  message: string;
}

export interface RunFlowResult {
  runId: string;
  status: RunOutcome;
  /** The run's output, or a reference to it when it is large. */
  output?: unknown;
  error?: RunError;
}

/**
 * A run that fails ends its workflow Failed with this error type (its RunFlowResult as the
 * failure's details), and a cancelled one ends it Cancelled, so that Temporal's own status (UI
 * filters, `ExecutionStatus="Failed"` queries, alerts) says what the run record says. Workflows
 * recorded before (their failed runs completed with the result) replay as they ran.
 */
export const RUN_FAILED_ERROR = "RunFailed";
/**
 * The patch that marks a loop (or flow.call) that stops at its first failed item: it starts no
 * more items, cancels those running and ends those never started; and that, when its run is being
 * cancelled, ends cancelled rather than failed. Loops recorded before run every item.
 */
export const LOOP_STOPS_AT_FAILURE = "loop-stops-at-first-failure";
/** The patch that marks a runFlow history whose unsuccessful end fails or cancels the workflow. */
export const RUN_ENDS_IN_TEMPORAL_STATUS = "run-ends-in-temporal-status";

/** The patch that marks a runFlow history in which a node's failure may be handled (on_error). */
export const NODE_ON_ERROR = "node-on-error";

/**
 * The patch that marks a loop (or flow.call) whose child run ended cancelled while its own run was
 * not being cancelled: the node is cancelled, and its run ends cancelled with it, whatever the
 * node's on_error (docs/runs.md, run trees). Histories recorded before failed the node.
 */
export const CANCELLED_CHILD_CANCELS_RUN = "cancelled-child-cancels-run";

/**
 * The failure type of a node whose children were refused because a cancel closed its run's tree
 * (core/runs/cancel/run-tree-cancel.ts): the node, and its run, end cancelled rather than failed.
 */
export const RUN_TREE_CLOSED_ERROR = "RunTreeClosed";

/** What a node whose failure was handled outputs (on_error continue or branch). */
export interface NodeErrorOutput {
  error: {
    message: string;
    /** The failure's type: the node's own (NodeError, NodeFatalError, ...), or Timeout. */
    code: string;
  };
}

/** A node's failure after its last attempt, handled per its on_error: recorded on its last attempt's row. */
export interface RecordHandledFailureInput {
  runId: string;
  nodeId: string;
  type: string;
  onError: "continue" | "branch";
  output: NodeErrorOutput;
  /** "error" with on_error branch. */
  branch?: string;
}

/** A node output stored in run_blobs instead of travelling through Temporal's history. */
export interface BlobRef {
  $blob: string;
  bytes: number;
}

export function isBlobRef(value: unknown): value is BlobRef {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { $blob?: unknown }).$blob === "string" &&
    Object.keys(value).length === 2 &&
    typeof (value as { bytes?: unknown }).bytes === "number"
  );
}

/** Run facts templates can read as {{ run.* }}. */
export interface RunFacts {
  id: string;
  flow_id: string;
  version: number;
  started_at: string;
}

export interface NodeActivityInput {
  runId: string;
  workspaceId: string;
  flowId: string;
  nodeId: string;
  type: string;
  handling: NodeHandling;
  config: Record<string, unknown>;
  /** The node's input (see README: "Data between nodes"); may be a BlobRef. */
  input: unknown;
  /** Outputs of the upstream nodes the config references, by id; values may be BlobRefs. */
  upstream: Record<string, unknown>;
  /** The run's input, when the config references {{ trigger }}. */
  trigger?: unknown;
  run: RunFacts;
  /** Merge: parent ids in edge order, those that ran. */
  parents?: string[];
  /** A wait: the node's name, for the people it waits on (other nodes do without). */
  nodeName?: string;
  /** The node runs once per item (NodePlan.items). */
  items?: ItemsRun;
  /**
   * Set on the run's last node when it alone decides the outcome: its success also ends the run,
   * in the same commit as its step (the workflow then has no bookkeeping left to do), provided
   * the rows of the earlier successes written after their activities answered (`written`) are
   * there; `succeeded` are successes of local nodes nobody has written yet, written with it.
   */
  endsRun?: Pick<FinalizeRunInput, "skipped" | "reused" | "succeeded"> & {
    written: Array<Pick<StepRecord, "nodeId" | "attempt">>;
  };
  /**
   * Successes of earlier local nodes that nobody has written yet: a regular node's activity
   * writes them when it starts, off the run's critical path (and the run's end again if missing).
   */
  carried?: StepRecord[];
  /**
   * A budgeted node (ai.prompt) an admin let run over a reached budget: the approved budget
   * wait's id. Without it the activity checks the budgets first (NodeActivityResult.budget).
   */
  budgetPass?: string;
}

export interface NodeActivityResult {
  output: unknown;
  branch?: string;
  /** The run record is final: this step's success ended it (see NodeActivityInput.endsRun). */
  runEnded?: true;
  /**
   * The attempt succeeded and its step row is being written while Temporal moves on: the
   * workflow keeps the record, and the run's end writes it again if the row never arrived.
   */
  step?: Pick<StepRecord, "attempt" | "startedAt" | "finishedAt">;
  /**
   * With `step`: a local node's row is not written at all; the workflow hands it to the next
   * write (a regular node's activity, the run's end, or recordSteps).
   */
  unwritten?: true;
  /**
   * A budget of the workspace or flow is reached: the node did not run (nothing else is set but
   * a null output). The run waits on a budget wait for an admin, then runs it with a budgetPass.
   */
  budget?: BudgetHold;
}

/** A node a budget held back: its wait (reason budget) and its step recorded as running. */
export interface NodeBudgetWaitStartInput {
  runId: string;
  workspaceId: string;
  flowId: string;
  nodeId: string;
  type: string;
  hold: BudgetHold;
}

/** The end of a node's budget wait: decided (approved: the node runs; rejected: the run ends cancelled) or closed with its run. */
export interface NodeBudgetWaitFinishInput {
  runId: string;
  nodeId: string;
  type: string;
  waitId: string;
  /** When the wait started (its step's start). */
  since: string;
  status: "decided" | "cancelled";
  decision?: Extract<WaitDecision, "approved" | "rejected">;
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
  /** The node does not run: its step fails with this error. */
  stepError?: { message: string; type: string };
}

/** A successful attempt, as the workflow keeps it for the run's end (see NodeActivityResult.step). */
export interface StepRecord {
  nodeId: string;
  type: string;
  attempt: number;
  startedAt: string;
  finishedAt: string;
  output: unknown;
  branch?: string;
}

export interface DelayStart {
  attempt: number;
  durationMs: number;
}

export interface LoopStart {
  attempt: number;
  concurrency: number;
  /** The flow run once per item, pinned to its current version. */
  flow: { id: string; name: string; version: number; definition: FlowDefinition; plan: Record<string, NodePlan> };
  /** One child run per item, in item order; their run records exist already. */
  children: Array<{ runId: string; item: unknown; startedAt: string; priority?: number }>;
  /** A flow.call: one child, whose output is the node's (a loop's is the array of them). */
  single?: true;
  /** The children's trigger when not "loop". */
  trigger?: RunTrigger;
}

export interface AgentStart {
  attempt: number;
  /** The agent run, recorded already; its workflow id is its id. */
  agent: AgentRunInput;
}

export interface RecordStepsInput {
  runId: string;
  /** Successes of local nodes (see NodeActivityResult.unwritten). */
  steps: StepRecord[];
}

/** A loop's child runs it will not start, ended as cancelled with `reason`. */
export interface CancelUnstartedRunsInput {
  runId: string;
  runIds: string[];
  reason: string;
}

export interface CompleteStepInput {
  runId: string;
  nodeId: string;
  attempt: number;
  output: unknown;
}

export interface FinalizeRunInput {
  runId: string;
  status: RunOutcome;
  /** Sinks' outputs: one sink's output as is, several keyed by node id (refs resolved on write). */
  output?: unknown;
  error?: RunError;
  /** Nodes that never ran, recorded as skipped steps. */
  skipped: Array<{ nodeId: string; type: string }>;
  /** Nodes carried over from the original run (retry, rerun), recorded as successful steps. */
  reused: Array<{ nodeId: string; type: string; output: unknown; branch?: string }>;
  /** Successes whose rows their activities wrote after answering: written here if they are missing. */
  succeeded?: StepRecord[];
  /**
   * Nodes the run's cancellation stopped: those that have no row yet (cancelled before their
   * activity recorded anything) get a failed one, so the step log has every node.
   */
  interrupted?: Array<{ nodeId: string; type: string }>;
}

/** Error types that never retry: a bad config does not get better on the next attempt. */
export const NON_RETRYABLE_ERRORS = ["NodeConfigError", "NodeFatalError"] as const;
