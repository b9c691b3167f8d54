// What the API, the runFlow and agentRun workflows and their activities exchange about waits (a
// wait node's, or an agent's tool call awaiting approval): the update that decides a wait, the
// query that shows the pending ones, and their types.
import { defineQuery, defineUpdate } from "@temporalio/workflow";

export const WAIT_MODES = ["approval", "resume"] as const;

/** Why a wait waits: a wait node, an agent's tool call awaiting approval, a budget a model call reached. */
export const WAIT_REASONS = ["node", "tool", "budget"] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/**
 * A budget a model call found reached (core/usage/budgets.ts): the call does not run, its run or
 * agent run waits for an admin's decision (a wait with reason budget): approve once, raise the
 * budget, or stop.
 */
export interface BudgetHold {
  budgetId: string;
  /** null: the workspace's budget. */
  flowId: string | null;
  metric: "tokens" | "cost";
  period: "day" | "month";
  limit: number;
  /** What was spent in the period when the call was held. */
  spent: number;
}

/** Who decides a budget wait: admins and owners. */
export const BUDGET_DECIDERS = { minRole: "admin" } as const;
export type WaitMode = (typeof WAIT_MODES)[number];

/** What a timeout does: fail the node, or follow the wait's `timeout` branch. */
export const WAIT_TIMEOUT_OUTCOMES = ["fail", "branch"] as const;
export type WaitTimeoutOutcome = (typeof WAIT_TIMEOUT_OUTCOMES)[number];

/**
 * Workspace roles from least to most (the database's Role; core/workspaces/permissions.ts ranks them
 * the same way). Deciding needs `waits:decide`, editors and up; a node may ask for more.
 */
export const WORKSPACE_ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
export const DECIDER_ROLES = ["editor", "admin", "owner"] as const;
export type DeciderRole = (typeof DECIDER_ROLES)[number];

export const roleAtLeast = (role: string, least: string) =>
  WORKSPACE_ROLES.indexOf(role as WorkspaceRole) >= WORKSPACE_ROLES.indexOf(least as WorkspaceRole) &&
  WORKSPACE_ROLES.includes(role as WorkspaceRole);

/** Who may decide an approval: the least role, and the one user when the node names one. */
export interface WaitDeciders {
  minRole: DeciderRole;
  userId?: string;
}

/** Whether a member may decide an approval of these deciders. */
export const mayDecide = (deciders: WaitDeciders, member: { id: string; role: string }) =>
  roleAtLeast(member.role, deciders.minRole) && (deciders.userId === undefined || deciders.userId === member.id);

/** The start of a wait, as its activity recorded it (the workflow then waits on an update). */
export interface WaitStart {
  attempt: number;
  waitId: string;
  mode: WaitMode;
  deciders: WaitDeciders;
  /** How long the wait lasts at most (a durable timer); absent: until decided or cancelled. */
  timeoutMs?: number;
  /** The timeout as configured (`3d`), for the node's error. */
  timeout?: string;
  onTimeout: WaitTimeoutOutcome;
  /**
   * resume: the token of the resume URL. The database keeps only its SHA-256; the run's workflow
   * keeps the token, and shows it to the API through pendingWaitsQuery.
   */
  resumeToken?: string;
}

/** A decision the API hands the run's workflow (decideWaitUpdate). */
export interface WaitDecisionInput {
  waitId: string;
  action: "approve" | "reject" | "resume";
  comment?: string;
  /** approval: the member deciding, as the API authenticated them. */
  decidedBy?: { id: string; name: string; role: string };
  /** resume: the POST body (a BlobRef when large). */
  body?: unknown;
}

export type WaitDecision = "approved" | "rejected" | "resumed";

/** How a decided wait was closed: the update's answer. */
export interface WaitDecided {
  waitId: string;
  decision: WaitDecision;
  decidedAt: string;
}

/**
 * Decides a pending wait of the run. Its validator refuses, with an ApplicationFailure of one of
 * WAIT_REFUSALS' types, a wait that is unknown, decided, expired or closed, the wrong action for its
 * mode, or a member the node does not allow; the update's answer comes once the wait's record is
 * closed. The history keeps each accepted update with its input (who decided).
 */
export const decideWaitUpdate = defineUpdate<WaitDecided, [WaitDecisionInput]>("decideWait");

/** The run's pending waits, with the resume token of those that have one. */
export const pendingWaitsQuery =
  defineQuery<Array<{ waitId: string; nodeId?: string; resumeToken?: string }>>("pendingWaits");

/** Failure types of refused decisions (the update's validator). */
export const WAIT_REFUSALS = {
  unknown: "WaitUnknown",
  decided: "WaitDecided",
  expired: "WaitExpired",
  closed: "WaitClosed",
  wrongAction: "WaitWrongAction",
  notAllowed: "WaitNotAllowed",
} as const;

/** The error type of a wait whose timeout fails its node. */
export const WAIT_TIMED_OUT = "WaitTimedOut";

/** What ends a wait's record and its step (the finishWait bookkeeping activity). */
export interface FinishWaitInput {
  runId: string;
  nodeId: string;
  waitId: string;
  attempt: number;
  type: string;
  status: "decided" | "expired" | "cancelled";
  decision?: WaitDecision;
  comment?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
  /** The step's end: success with the node's output and branch, or failed with its error. */
  step:
    | { status: "success"; output: unknown; branch: string }
    | { status: "failed"; error: { message: string; type: string } };
}
