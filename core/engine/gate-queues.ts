// Queue depth and waiting time per flow and per gate (one gate per flow and key), for operators:
// the API's svc_runs_queued{flow} and svc_gate_runs_queued{flow,gate} gauges, and the flow's
// "Queue" line in the dashboard (GET /api/flows/{id}/queue). Read from the running gate workflows
// of the task queue (Temporal's visibility), each asked for its queue (the gateQueue query), the
// waiting runs' starts read from the runs table. The metrics name a gate by its workflow id, never
// by its key (run data, unbounded); the flow's page, seen by the flow's workspace, shows the key.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { queuesPerFlow } from "../../lib/operator-metrics.js";
import { CONCURRENCY_GATE_WORKFLOW, gateQueueQuery } from "../contracts/concurrency-gate.js";
import { UNENDED_RUN_STATUSES } from "../contracts/run-flow.js";
import { shownKey } from "./concurrency-gates.js";

/** Gates asked at most per reading, and how long one may take to answer. */
export const GATE_QUEUES_LIMITS = { maxGates: 200, queryDeadlineMs: 2000 } as const;

export interface FlowQueue {
  flowId: string;
  /** Runs waiting at the flow's gates (all keys). */
  queued: number;
  /** Seconds since the oldest of them started (0 when none waits). */
  oldestWaitSeconds: number;
}

/** One gate (one key of a flow) with its holders and its queue. */
export interface GateQueue extends FlowQueue {
  /** The gate's workflow id: gate-<flow id>-<hash of the key>. */
  gateId: string;
  /** The key as statuses show it (its sha256 when long); null when the gate does not say. */
  key: string | null;
  limit: number;
  /** Runs holding a slot. */
  holding: number;
}

export type GateQueueDeps = { temporal: Client; prisma: PrismaClient; clock: Clock };

/** A gate's workflow id is gate-<flow id>-<32 hex digits of its key's hash> (concurrency-gates.ts). */
const flowOfGate = (gateId: string) => /^gate-(wf_[0-9a-f]+)-[0-9a-f]{32}$/.exec(gateId)?.[1];

/** The running gates of the task queue (of one flow when given), at most GATE_QUEUES_LIMITS.maxGates. */
async function runningGates(temporal: Client, taskQueue: string, flowId?: string): Promise<string[]> {
  const gates: string[] = [];
  const ofFlow = flowId ? ` AND WorkflowId STARTS_WITH 'gate-${flowId.replace(/[^a-z0-9_]/g, "")}-'` : "";
  const query = `WorkflowType = '${CONCURRENCY_GATE_WORKFLOW}' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replace(/'/g, "")}'${ofFlow}`;
  for await (const gate of temporal.workflow.list({ query, pageSize: 100 })) {
    gates.push(gate.workflowId);
    if (gates.length >= GATE_QUEUES_LIMITS.maxGates) break;
  }
  return gates;
}

/**
 * The gates of the task queue (of one flow, and only its waiting runs of one workspace, when
 * given), each with its queue and the oldest waiting run's wait. A gate that does not answer in
 * time is left out.
 */
export async function readGates(
  deps: GateQueueDeps,
  taskQueue: string,
  only?: { flowId: string; workspaceId: string },
): Promise<GateQueue[]> {
  const gateIds = await runningGates(deps.temporal, taskQueue, only?.flowId);
  const answers = await Promise.all(
    gateIds.map(async (gateId) => {
      const flowId = flowOfGate(gateId);
      if (!flowId || (only && flowId !== only.flowId)) return undefined;
      const answer = await deps.temporal.connection
        .withDeadline(Date.now() + GATE_QUEUES_LIMITS.queryDeadlineMs, () =>
          deps.temporal.workflow.getHandle(gateId).query(gateQueueQuery),
        )
        .catch(() => undefined);
      return answer && { gateId, flowId, answer };
    }),
  );
  const gates = answers.filter((gate) => gate !== undefined);
  const waitingIds = gates.flatMap((gate) => gate.answer.waiting);
  const started =
    waitingIds.length === 0
      ? []
      : await deps.prisma.run.findMany({
          where: {
            id: { in: waitingIds },
            status: { in: [...UNENDED_RUN_STATUSES] },
            ...(only ? { workspaceId: only.workspaceId } : {}),
          },
          select: { id: true, startedAt: true },
        });
  const startOf = new Map(started.map((run) => [run.id, run.startedAt.getTime()]));
  const now = deps.clock.now().getTime();
  return gates.map(({ gateId, flowId, answer }) => {
    const starts = answer.waiting.flatMap((runId) => startOf.get(runId) ?? []);
    return {
      flowId,
      gateId,
      key: answer.key === undefined ? null : shownKey(answer.key),
      limit: answer.limit,
      holding: answer.holders.length,
      queued: starts.length,
      oldestWaitSeconds: starts.length === 0 ? 0 : Math.max(0, (now - Math.min(...starts)) / 1000),
    };
  });
}

/** The flows whose gates have runs waiting, with how many and how long the oldest has waited. */
export async function readGateQueues(deps: GateQueueDeps, taskQueue: string): Promise<FlowQueue[]> {
  return queuesPerFlow(await readGates(deps, taskQueue));
}
