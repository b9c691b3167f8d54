// The start of a wait step (the workflow then waits for its decision, and the activity records
// the step around this): checks who may decide, makes the resume token, and records the wait.
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { parseDuration } from "../../lib/duration.js";
import { eventRecord } from "../../lib/events.js";
import { derivedId } from "../../lib/ids.js";
import type { WaitStart } from "../contracts/waits.js";
import { runEventData } from "../runs/records/run-records.js";
import { recordWaitStart } from "./wait-records.js";
import { hashResumeToken, newResumeToken } from "./wait-tokens.js";
import { NodeConfigError } from "../nodes/node-error.js";
import type { WaitConfig } from "../nodes/wait/wait.node.js";

/** A wait's id derives from its run, node and attempt: a repeated start makes the same one. */
export const waitIdOf = (runId: string, nodeId: string, attempt: number) => derivedId("wait", [runId, nodeId, attempt]);

export interface WaitStep {
  runId: string;
  workspaceId: string;
  nodeId: string;
  nodeName?: string;
  attempt: number;
}

export async function startWait(
  { prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
  step: WaitStep,
  config: WaitConfig,
): Promise<Omit<WaitStart, "attempt">> {
  const approval = config.mode === "approval";
  const userId = approval ? config.approver_user_id : undefined;
  if (userId) {
    const member = await prisma.membership.findUnique({
      where: { userId_workspaceId: { userId, workspaceId: step.workspaceId } },
      select: { role: true },
    });
    // Nobody else may decide: a wait no member can decide would last until its timeout.
    if (!member)
      throw new NodeConfigError(step.nodeId, `approver_user_id: ${userId} is not a member of this workspace`);
  }
  const run = await prisma.run.findUniqueOrThrow({
    where: { id: step.runId },
    select: { id: true, flowId: true, flowName: true, startedAt: true },
  });
  const timeoutMs = config.timeout === undefined ? undefined : parseDuration(config.timeout)!;
  const now = clock.now();
  const waitId = waitIdOf(step.runId, step.nodeId, step.attempt);
  const resumeToken = approval ? undefined : newResumeToken();
  const expiresAt = timeoutMs === undefined ? null : new Date(now.getTime() + timeoutMs);
  // The run's data as run.started carries it, and the wait's (never its resume token), at the wait's time.
  const event = eventRecord({ now: () => now }, step.workspaceId, "run.waiting", {
    ...runEventData({ ...run, status: "running", durationMs: null, finishedAt: null }),
    wait_id: waitId,
    node_id: step.nodeId,
    mode: config.mode,
    expires_at: expiresAt?.toISOString() ?? null,
  });
  await recordWaitStart(
    { prisma, seal },
    {
      id: waitId,
      workspaceId: step.workspaceId,
      runId: step.runId,
      nodeId: step.nodeId,
      nodeName: step.nodeName ?? null,
      attempt: step.attempt,
      mode: config.mode,
      message: config.message ?? null,
      approverUserId: userId ?? null,
      minRole: config.min_role,
      tokenHash: resumeToken === undefined ? null : hashResumeToken(resumeToken),
      expiresAt,
      createdAt: now,
    },
    event,
  );
  return {
    waitId,
    mode: config.mode,
    deciders: { minRole: config.min_role, ...(userId ? { userId } : {}) },
    ...(timeoutMs === undefined ? {} : { timeoutMs, timeout: config.timeout }),
    onTimeout: config.on_timeout,
    ...(resumeToken === undefined ? {} : { resumeToken }),
  };
}
