// The waits a member reads: their inbox, a run's waits, an agent run's tool approvals.
import { DECIDER_ROLES, roleAtLeast } from "../contracts/waits.js";
import type { WaitsContext } from "./wait-context.js";
import { resumeTokens } from "./wait-delivery.js";
import { WaitNotFound } from "./wait-errors.js";
import { allows, openedWait, resumePath, waitView, withRun, type WaitMember, type WaitView } from "./wait-views.js";

/**
 * The pending waits the member may decide, newest first: `limit` of them `after` the last one
 * shown (keyset on since and id).
 */
export async function waitInbox(
  { prisma, seal }: Pick<WaitsContext, "prisma" | "seal">,
  member: WaitMember,
  page: { limit: number; after?: { since: Date; id: string } },
): Promise<WaitView[]> {
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
  return rows.map((wait) => waitView(openedWait(seal, wait), member));
}

/** A run's waits, oldest first; pending resume waits carry their URL for members who may decide. */
export async function waitsOfRun(context: WaitsContext, member: WaitMember, runId: string) {
  const { prisma, seal } = context;
  const run = await prisma.run.findFirst({
    where: { id: runId, workspaceId: member.workspaceId },
    select: { id: true },
  });
  if (!run) throw new WaitNotFound("No such run in this workspace");
  const waits = await prisma.wait.findMany({ where: { runId }, include: withRun, orderBy: [{ createdAt: "asc" }] });
  const shown = waits.filter((wait) => wait.mode === "resume" && wait.status === "pending" && allows(wait, member));
  const tokens = shown.length > 0 ? await resumeTokens(context, runId) : new Map<string, string>();
  return waits.map((wait) => {
    const token = shown.includes(wait) ? tokens.get(wait.id) : undefined;
    return { ...waitView(openedWait(seal, wait), member), resume_url: token ? resumePath(token) : null };
  });
}

/** An agent run's tool approvals, oldest first. */
export async function waitsOfAgentRun(
  { prisma, seal }: Pick<WaitsContext, "prisma" | "seal">,
  member: WaitMember,
  agentRunId: string,
) {
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
  return waits.map((wait) => waitView(openedWait(seal, wait), member));
}
