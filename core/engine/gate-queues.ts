// Queue depth and waiting time per flow, for operators (the API's svc_runs_queued and
// svc_runs_queued_oldest_seconds): the running gate workflows of the task queue (Temporal's
// visibility), each asked for its queue (the gateQueue query), the waiting runs' starts read from
// the runs table. Per flow, not per key: a key is run data and its values are unbounded.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { CONCURRENCY_GATE_WORKFLOW, gateQueueQuery } from "../contracts/concurrency-gate.js";
import { UNENDED_RUN_STATUSES } from "../contracts/run-flow.js";

/** Gates asked at most per reading, and how long one may take to answer. */
export const GATE_QUEUES_LIMITS = { maxGates: 200, queryDeadlineMs: 2000 } as const;

export interface FlowQueue {
  flowId: string;
  /** Runs waiting at the flow's gates (all keys). */
  queued: number;
  /** Seconds since the oldest of them started (0 when none waits). */
  oldestWaitSeconds: number;
}

/** A gate's workflow id is gate-<flow id>-<32 hex digits of its key's hash> (concurrency-gates.ts). */
const flowOfGate = (gateId: string) => /^gate-(wf_[0-9a-f]+)-[0-9a-f]{32}$/.exec(gateId)?.[1];

/** The flows whose gates have runs waiting, with how many and how long the oldest has waited. */
export async function readGateQueues(
  deps: { temporal: Client; prisma: PrismaClient; clock: Clock },
  taskQueue: string,
): Promise<FlowQueue[]> {
  const gates: string[] = [];
  const query = `WorkflowType = '${CONCURRENCY_GATE_WORKFLOW}' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replace(/'/g, "")}'`;
  for await (const gate of deps.temporal.workflow.list({ query, pageSize: 100 })) {
    gates.push(gate.workflowId);
    if (gates.length >= GATE_QUEUES_LIMITS.maxGates) break;
  }
  const waiting = await Promise.all(
    gates.map(async (gateId) => {
      const flowId = flowOfGate(gateId);
      if (!flowId) return [];
      const answer = await deps.temporal.connection
        .withDeadline(Date.now() + GATE_QUEUES_LIMITS.queryDeadlineMs, () =>
          deps.temporal.workflow.getHandle(gateId).query(gateQueueQuery),
        )
        .catch(() => undefined);
      return (answer?.waiting ?? []).map((runId) => ({ flowId, runId }));
    }),
  );
  const runs = waiting.flat();
  if (runs.length === 0) return [];
  const started = await deps.prisma.run.findMany({
    where: { id: { in: runs.map((run) => run.runId) }, status: { in: [...UNENDED_RUN_STATUSES] } },
    select: { id: true, flowId: true, startedAt: true },
  });
  const now = deps.clock.now().getTime();
  const byFlow = new Map<string, FlowQueue>();
  for (const run of started) {
    const flow = byFlow.get(run.flowId) ?? { flowId: run.flowId, queued: 0, oldestWaitSeconds: 0 };
    flow.queued++;
    flow.oldestWaitSeconds = Math.max(flow.oldestWaitSeconds, Math.max(0, (now - run.startedAt.getTime()) / 1000));
    byFlow.set(run.flowId, flow);
  }
  return [...byFlow.values()];
}
