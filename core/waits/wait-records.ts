// The waits table: a wait node's wait as the API lists and checks it. Started by the node's
// activity, closed with its step when the workflow settles it (decided, expired) or by the
// statement that ends its run (cancelled). The run's workflow holds the wait itself.
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { Clock } from "../../lib/clock.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { eventRecord } from "../../lib/events.js";
import type { FinishWaitInput, WaitMode } from "../contracts/waits.js";

export interface WaitRecordStart {
  id: string;
  workspaceId: string;
  runId: string;
  nodeId: string;
  nodeName: string | null;
  attempt: number;
  mode: WaitMode;
  message: string | null;
  approverUserId: string | null;
  minRole: string;
  tokenHash: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/**
 * Records a wait once per (run, node, attempt), with its event (run.waiting) in the same
 * statement: a repeated start (a retried local activity whose answer was lost) finds the row,
 * gives it the new token's hash (the earlier token reached nobody) and writes no second event.
 */
export async function recordWaitStart(
  { prisma, seal }: { prisma: PrismaClient; seal: JsonSeal },
  wait: WaitRecordStart,
  event: ReturnType<typeof eventRecord>,
): Promise<void> {
  await sqlQuery(
    prisma,
    Prisma.sql`
      WITH started AS (
        INSERT INTO waits (id, workspace_id, run_id, node_id, node_name, attempt, mode, message, approver_user_id,
                           min_role, token_hash, expires_at, created_at)
        VALUES (${wait.id}, ${wait.workspaceId}, ${wait.runId}, ${wait.nodeId}, ${wait.nodeName}, ${wait.attempt},
                ${wait.mode}::"WaitMode", ${wait.message === null ? null : seal.sealText(wait.message)}, ${wait.approverUserId}, ${wait.minRole}::"Role",
                ${wait.tokenHash}, ${wait.expiresAt}, ${wait.createdAt})
        ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash WHERE waits.status = 'pending'
        RETURNING (xmax = 0) AS inserted
      ), waiting AS (
        INSERT INTO events (id, workspace_id, type, payload, created_at)
        SELECT ${event.id}, ${event.workspaceId}, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, ${event.createdAt}
        FROM started WHERE inserted
      )
      SELECT 1`,
  );
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * Closes a wait and ends its step in one statement: the wait only while pending, the step only
 * while running, so a repeated call changes nothing.
 */
export async function finishWaitRecord(
  { prisma, clock, seal }: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
  input: FinishWaitInput,
): Promise<void> {
  const now = clock.now();
  const step = input.step;
  const duration = Prisma.sql`GREATEST(0, (EXTRACT(EPOCH FROM (${now}::timestamptz - started_at)) * 1000)::int)`;
  await sqlQuery(
    prisma,
    Prisma.sql`
      WITH closed AS (
        UPDATE waits SET status = ${input.status}::"WaitStatus", decision = ${input.decision ?? null},
          comment = ${input.comment ?? null}, decided_by = ${input.decidedBy?.id ?? null},
          decided_by_name = ${input.decidedBy?.name ?? null}, decided_at = ${input.decidedAt ?? null}::timestamptz,
          closed_at = ${now}
        WHERE id = ${input.waitId} AND status = 'pending'
      ), step_end AS (
        UPDATE run_steps SET status = ${step.status}::"StepStatus",
          branch = ${step.status === "success" ? step.branch : null},
          output = ${json(step.status === "success" ? seal.seal(step.output) : undefined)}::jsonb,
          error = ${json(step.status === "failed" ? seal.seal({ ...step.error, retryable: false }) : undefined)}::jsonb,
          finished_at = ${now}, duration_ms = ${duration}
        WHERE run_id = ${input.runId} AND node_id = ${input.nodeId} AND attempt = ${input.attempt} AND status = 'running'
      )
      SELECT 1`,
  );
}
