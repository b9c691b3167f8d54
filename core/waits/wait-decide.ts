// A member's decision on an approval wait, and a resume through a wait's resume URL.
import { recordAudit, recordAuditIn, type AuditContext, type AuditSource, type AuditWho } from "../audit/audit-log.js";
import type { WaitsContext } from "./wait-context.js";
import { deliverDecision, findWait } from "./wait-delivery.js";
import { WaitForbidden, WaitNotFound, WaitWrongMode } from "./wait-errors.js";
import { hashResumeToken, RESUME_TOKEN } from "./wait-tokens.js";
import { allows, closedError, openedWait, waitView, withRun, type WaitMember } from "./wait-views.js";

/** Approves or rejects an approval wait as the member; answers the closed wait. */
export async function decideWait(
  context: WaitsContext,
  member: WaitMember,
  waitId: string,
  decision: { decision: "approve" | "reject"; comment?: string },
  audit?: AuditContext,
) {
  const wait = await findWait(context, member.workspaceId, waitId);
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
  await deliverDecision(context, wait, {
    waitId,
    action: decision.decision,
    ...(decision.comment === undefined ? {} : { comment: decision.comment }),
    decidedBy: { id: member.id, name: member.name, role: member.role },
  });
  // Written once the run took the decision (it closes the wait); the comment is not copied. The
  // reason tells a wait node's approval, an agent's tool call and a budget decision apart.
  if (audit)
    await recordAudit(context.prisma, context.clock, audit, {
      action: decision.decision === "approve" ? "wait.approved" : "wait.rejected",
      object: { kind: "wait", id: waitId },
      details: {
        run_id: wait.runId,
        agent_run_id: wait.agentRunId,
        node_id: wait.nodeId,
        reason: wait.reason,
        commented: decision.comment !== undefined,
      },
    });
  return waitView(openedWait(context.seal, await findWait(context, member.workspaceId, waitId)), member);
}

/**
 * Who resumes a wait through its URL: the link itself, a bearer capability like an API token,
 * with no id of its own (the URL's token is never written; the row's object is the wait).
 */
const RESUME_LINK: AuditWho = { kind: "token", id: null, label: "resume link" };

/**
 * Resumes the wait whose resume URL holds `token` with `body` as the node's output (stored
 * apart when large). Unknown tokens are not found; a used one finds its wait settled.
 */
export async function resumeWait(
  context: WaitsContext,
  token: string,
  body: unknown,
  source: AuditSource = {},
): Promise<{ run_id: string; status_url: string }> {
  if (!RESUME_TOKEN.test(token)) throw new WaitNotFound("No wait to resume at this address");
  const wait = await context.prisma.wait.findUnique({ where: { tokenHash: hashResumeToken(token) }, include: withRun });
  if (!wait) throw new WaitNotFound("No wait to resume at this address");
  // Only wait nodes resume (an agent's waits are approvals, without a token).
  if (!wait.runId || !wait.nodeId) throw new WaitNotFound("No wait to resume at this address");
  if (wait.status !== "pending") throw closedError(wait);
  const output = await context.blobs.offload(wait.runId, wait.nodeId, body);
  await deliverDecision(context, wait, { waitId: wait.id, action: "resume", body: output });
  // Written once the run took the body, as a member's decision is; the body is not copied.
  await recordAuditIn(
    context.prisma,
    context.clock,
    { workspaceIds: [wait.workspaceId], who: RESUME_LINK, source },
    {
      action: "wait.resumed",
      object: { kind: "wait", id: wait.id },
      details: { run_id: wait.runId, node_id: wait.nodeId, reason: wait.reason },
    },
  );
  return { run_id: wait.runId, status_url: `/api/runs/${wait.runId}` };
}
