// Waits as the API shows them, and who may decide one.
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import { DECIDER_ROLES, mayDecide, type WaitReason } from "../contracts/waits.js";

/** A budget wait's budget as it stood (core/usage/budget-waits.ts writes it). */
interface BudgetView {
  id: string;
  flow_id: string | null;
  metric: "tokens" | "cost";
  period: "day" | "month";
  limit: number;
  spent: number;
}
import { WaitClosed } from "./wait-errors.js";

/** The member deciding, as the API authenticated them. */
export interface WaitMember {
  id: string;
  name: string;
  role: string;
  workspaceId: string;
}

export type WaitRow = Awaited<ReturnType<PrismaClient["wait"]["findFirstOrThrow"]>> & {
  run: { flowId: string; flowName: string } | null;
  agentRun: { agentId: string } | null;
};

/** What a wait is read with: its run's flow, or its agent run's agent. */
export const withRun = {
  run: { select: { flowId: true, flowName: true } },
  agentRun: { select: { agentId: true } },
} as const;

/** The arguments an agent's model proposed: their JSON, or the text as sent when it is not JSON. */
function proposedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const deciders = (wait: Pick<WaitRow, "minRole" | "approverUserId">) => ({
  minRole: wait.minRole as (typeof DECIDER_ROLES)[number],
  ...(wait.approverUserId ? { userId: wait.approverUserId } : {}),
});

/** Whether the member may decide the wait: approve or reject it, or see its resume URL. */
export const allows = (wait: Pick<WaitRow, "minRole" | "approverUserId">, member: WaitMember) =>
  mayDecide(deciders(wait), member);

export const resumePath = (token: string) => `/api/waits/resume/${token}`;

/** A wait as the API shows it. */
export function waitView(wait: WaitRow, member?: WaitMember) {
  return {
    id: wait.id,
    run_id: wait.runId,
    flow_id: wait.run?.flowId ?? null,
    flow_name: wait.run?.flowName ?? null,
    agent_run_id: wait.agentRunId,
    agent_id: wait.agentRun?.agentId ?? null,
    tool:
      wait.toolName === null ? null : { name: wait.toolName, arguments: proposedArguments(wait.toolArguments ?? "") },
    node_id: wait.nodeId,
    node_name: wait.nodeName,
    reason: wait.reason as WaitReason,
    budget: (wait.budget ?? null) as BudgetView | null,
    mode: wait.mode,
    message: wait.message,
    status: wait.status,
    decision: wait.decision,
    comment: wait.comment,
    decided_by: wait.decidedBy ? { id: wait.decidedBy, name: wait.decidedByName ?? "" } : null,
    decided_at: wait.decidedAt?.toISOString() ?? null,
    since: wait.createdAt.toISOString(),
    expires_at: wait.expiresAt?.toISOString() ?? null,
    approver_user_id: wait.approverUserId,
    min_role: wait.minRole,
    can_decide: member !== undefined && wait.status === "pending" && allows(wait, member),
  };
}

export type WaitView = ReturnType<typeof waitView>;

/** What a settled wait answers to a decision. */
export function closedError(wait: Pick<WaitRow, "status" | "decision" | "mode">): WaitClosed {
  if (wait.status === "decided") {
    return new WaitClosed("decided", `The wait was already ${wait.decision}`, { decision: wait.decision });
  }
  if (wait.status === "expired") return new WaitClosed("expired", "The wait timed out");
  return new WaitClosed("cancelled", "The wait was closed with its run");
}

/** A wait as stored, its message and proposed arguments (sealed at rest) opened. */
export const openedWait = <W extends Pick<WaitRow, "message" | "toolArguments">>(seal: JsonSeal, wait: W): W => ({
  ...wait,
  message: wait.message === null ? null : seal.openText(wait.message),
  toolArguments: wait.toolArguments === null ? null : seal.openText(wait.toolArguments),
});
