// People (and other systems) in the loop: the waits a member may decide (a wait node's, or an
// agent's tool call awaiting approval), a decision, a resume. The database says what is pending
// and who may decide; the run's (or agent run's) workflow takes the decision
// (decideWaitUpdate), refusing it when the wait was settled meanwhile, and answers once the wait's
// record is closed.
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from "@temporalio/client";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import {
  DECIDER_ROLES,
  WAIT_REFUSALS,
  decideWaitUpdate,
  mayDecide,
  pendingWaitsQuery,
  roleAtLeast,
  type WaitDecisionInput,
} from "../contracts/waits.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { createBlobStore } from "../runs/blobs.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import { WaitClosed, WaitForbidden, WaitNotFound, WaitStarting, WaitWrongMode } from "./wait-errors.js";
import { hashResumeToken, RESUME_TOKEN } from "./wait-tokens.js";

/** The member deciding, as the API authenticated them. */
export interface WaitMember {
  id: string;
  name: string;
  role: string;
  workspaceId: string;
}

export interface WaitsServiceDeps {
  prisma: PrismaClient;
  temporal: Client;
  logger: Logger;
  config: Pick<Config, "RUN_OUTPUT_OFFLOAD_BYTES" | "SVC_ENCRYPTION_KEY">;
}

/** How long a decision may take to reach the run's workflow and be recorded. */
const DECISION_DEADLINE_MS = 15_000;
/** How long the run page waits for a workflow to show its resume tokens. */
const QUERY_DEADLINE_MS = 5_000;
/** A wait recorded a moment before its workflow took it in: tries, a pause apart. */
const STARTING_TRIES = 10;
const STARTING_PAUSE_MS = 200;

type WaitRow = Awaited<ReturnType<PrismaClient["wait"]["findFirstOrThrow"]>> & {
  run: { flowId: string; flowName: string } | null;
  agentRun: { agentId: string } | null;
};

const withRun = {
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
const allows = (wait: Pick<WaitRow, "minRole" | "approverUserId">, member: WaitMember) =>
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
function closedError(wait: Pick<WaitRow, "status" | "decision" | "mode">): WaitClosed {
  if (wait.status === "decided") {
    return new WaitClosed("decided", `The wait was already ${wait.decision}`, { decision: wait.decision });
  }
  if (wait.status === "expired") return new WaitClosed("expired", "The wait timed out");
  return new WaitClosed("cancelled", "The wait was closed with its run");
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createWaitsService(deps: WaitsServiceDeps) {
  const { prisma, temporal, logger } = deps;
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  /** A wait as stored, its message and proposed arguments (sealed at rest) opened. */
  const opened = <W extends Pick<WaitRow, "message" | "toolArguments">>(wait: W): W => ({
    ...wait,
    message: wait.message === null ? null : seal.openText(wait.message),
    toolArguments: wait.toolArguments === null ? null : seal.openText(wait.toolArguments),
  });

  async function find(workspaceId: string, id: string): Promise<WaitRow> {
    const wait = await prisma.wait.findFirst({ where: { id, workspaceId }, include: withRun });
    if (!wait) throw new WaitNotFound();
    return wait;
  }

  /**
   * Hands a decision to the run's workflow and waits for its answer (the wait's record is closed
   * by then). Its refusals, and a run that has ended, become the wait's errors.
   */
  async function deliver(wait: WaitRow, input: WaitDecisionInput): Promise<void> {
    // The workflow holding the wait: the run's, or the agent run's (their workflow ids are their ids).
    const handle = temporal.workflow.getHandle((wait.runId ?? wait.agentRunId)!);
    for (let tries = 1; ; tries++) {
      try {
        await temporal.withDeadline(Date.now() + DECISION_DEADLINE_MS, () =>
          handle.executeUpdate(decideWaitUpdate, { args: [input] }),
        );
        return;
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) {
          const { type, message } = (error.cause ?? {}) as { type?: string; message?: string };
          if (type === WAIT_REFUSALS.unknown) {
            if (tries < STARTING_TRIES) {
              await pause(STARTING_PAUSE_MS);
              continue;
            }
            throw new WaitStarting();
          }
          if (type === WAIT_REFUSALS.decided) {
            // Another decision came first; its record may be a moment from closed.
            const now = await find(wait.workspaceId, wait.id);
            throw now.status === "decided"
              ? closedError(now)
              : new WaitClosed("decided", message ?? "The wait was already decided");
          }
          if (type === WAIT_REFUSALS.expired) throw new WaitClosed("expired", "The wait timed out");
          if (type === WAIT_REFUSALS.closed) throw new WaitClosed("cancelled", "The wait was closed with its run");
          if (type === WAIT_REFUSALS.notAllowed) throw new WaitForbidden();
          if (type === WAIT_REFUSALS.wrongAction) throw new WaitWrongMode(message ?? "Wrong action for this wait");
          throw error;
        }
        if (error instanceof WorkflowNotFoundError) {
          // The run ended (or its workflow is gone) before the decision reached it.
          const now = await find(wait.workspaceId, wait.id);
          throw now.status === "pending" ? new WaitClosed("cancelled", "The wait's run has ended") : closedError(now);
        }
        if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
          throw temporalRefusal("The decision was not taken", error.cause ?? error);
        }
        throw temporalRefusal("The decision was not taken", error);
      }
    }
  }

  /** The resume tokens of a run's pending waits, from its workflow (none when it does not answer). */
  async function resumeTokens(runId: string): Promise<Map<string, string>> {
    try {
      const pending = await temporal.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
        temporal.workflow.getHandle(runId).query(pendingWaitsQuery),
      );
      return new Map(pending.flatMap((wait) => (wait.resumeToken ? [[wait.waitId, wait.resumeToken] as const] : [])));
    } catch (error) {
      logger.warn({ err: error, run_id: runId }, "the run's workflow did not show its resume tokens");
      return new Map();
    }
  }

  return {
    /**
     * The pending waits the member may decide, newest first: `limit` of them `after` the last one
     * shown (keyset on since and id).
     */
    async inbox(member: WaitMember, page: { limit: number; after?: { since: Date; id: string } }): Promise<WaitView[]> {
      const roles = DECIDER_ROLES.filter((role) => roleAtLeast(member.role, role));
      if (roles.length === 0) return [];
      const after = page.after;
      const rows = await prisma.wait.findMany({
        where: {
          workspaceId: member.workspaceId,
          status: "pending",
          minRole: { in: [...roles] },
          AND: [
            { OR: [{ approverUserId: null }, { approverUserId: member.id }] },
            after ? { OR: [{ createdAt: { lt: after.since } }, { createdAt: after.since, id: { lt: after.id } }] } : {},
          ],
        },
        include: withRun,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.limit,
      });
      return rows.map((wait) => waitView(opened(wait), member));
    },

    /** A run's waits, oldest first; pending resume waits carry their URL for members who may decide. */
    async ofRun(member: WaitMember, runId: string) {
      const run = await prisma.run.findFirst({
        where: { id: runId, workspaceId: member.workspaceId },
        select: { id: true },
      });
      if (!run) throw new WaitNotFound("No such run in this workspace");
      const waits = await prisma.wait.findMany({ where: { runId }, include: withRun, orderBy: [{ createdAt: "asc" }] });
      const shown = waits.filter((wait) => wait.mode === "resume" && wait.status === "pending" && allows(wait, member));
      const tokens = shown.length > 0 ? await resumeTokens(runId) : new Map<string, string>();
      return waits.map((wait) => {
        const token = shown.includes(wait) ? tokens.get(wait.id) : undefined;
        return { ...waitView(opened(wait), member), resume_url: token ? resumePath(token) : null };
      });
    },

    /** An agent run's tool approvals, oldest first. */
    async ofAgentRun(member: WaitMember, agentRunId: string) {
      const run = await prisma.agentRun.findFirst({
        where: { id: agentRunId, workspaceId: member.workspaceId },
        select: { id: true },
      });
      if (!run) throw new WaitNotFound("No such agent run in this workspace");
      const waits = await prisma.wait.findMany({
        where: { agentRunId },
        include: withRun,
        orderBy: [{ createdAt: "asc" }],
      });
      return waits.map((wait) => waitView(opened(wait), member));
    },

    /** Approves or rejects an approval wait as the member; answers the closed wait. */
    async decide(member: WaitMember, waitId: string, decision: { decision: "approve" | "reject"; comment?: string }) {
      const wait = await find(member.workspaceId, waitId);
      if (wait.mode !== "approval") {
        throw new WaitWrongMode("A resume wait is resumed through its resume URL, not approved or rejected");
      }
      if (!allows(wait, member)) {
        throw new WaitForbidden(
          wait.approverUserId
            ? "Only the member this wait names may decide it"
            : `Deciding this wait takes the ${wait.minRole} role or higher`,
        );
      }
      if (wait.status !== "pending") throw closedError(wait);
      await deliver(wait, {
        waitId,
        action: decision.decision,
        ...(decision.comment === undefined ? {} : { comment: decision.comment }),
        decidedBy: { id: member.id, name: member.name, role: member.role },
      });
      return waitView(opened(await find(member.workspaceId, waitId)), member);
    },

    /**
     * Resumes the wait whose resume URL holds `token` with `body` as the node's output (stored
     * apart when large). Unknown tokens are not found; a used one finds its wait settled.
     */
    async resume(token: string, body: unknown): Promise<{ run_id: string; status_url: string }> {
      if (!RESUME_TOKEN.test(token)) throw new WaitNotFound("No wait to resume at this address");
      const wait = await prisma.wait.findUnique({ where: { tokenHash: hashResumeToken(token) }, include: withRun });
      if (!wait) throw new WaitNotFound("No wait to resume at this address");
      // Only wait nodes resume (an agent's waits are approvals, without a token).
      if (!wait.runId || !wait.nodeId) throw new WaitNotFound("No wait to resume at this address");
      if (wait.status !== "pending") throw closedError(wait);
      const output = await blobs.offload(wait.runId, wait.nodeId, body);
      await deliver(wait, { waitId: wait.id, action: "resume", body: output });
      return { run_id: wait.runId, status_url: `/api/runs/${wait.runId}` };
    },
  };
}

export type WaitsService = ReturnType<typeof createWaitsService>;
