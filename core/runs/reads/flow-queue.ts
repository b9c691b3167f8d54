// A flow's queue as its editor page shows it (GET /api/flows/{id}/queue): per key (one gate each),
// the runs waiting and holding a slot now and how long the oldest waiting one has waited, read from
// the flow's running gates (core/engine/gate-queues.ts), with the slots its keys hold in the database
// (core/engine/concurrency-slots.ts: a run that found its key free never meets the gate). Keys with
// the most runs waiting first.
import { slotKeyHash } from "../../engine/concurrency-slots.js";
import { readGates, type GateQueueDeps } from "../../engine/gate-queues.js";
import { findFlow } from "../../flows/find-flow.js";
import type { Config } from "../../../lib/config.js";

/** Keys listed at most (the totals count every gate read). */
export const FLOW_QUEUE_MAX_KEYS = 20;

export interface FlowQueueView {
  queued: number;
  oldest_wait_seconds: number;
  keys: Array<{ key: string | null; queued: number; running: number; limit: number; oldest_wait_seconds: number }>;
}

/** The flow's queue now; FlowNotFound for another workspace's flow. */
export async function flowQueue(
  deps: GateQueueDeps & { config: Pick<Config, "TEMPORAL_TASK_QUEUE"> },
  workspaceId: string,
  flowId: string,
): Promise<FlowQueueView> {
  await findFlow(deps.prisma, workspaceId, flowId);
  const gates = await readGates(deps, deps.config.TEMPORAL_TASK_QUEUE, { flowId, workspaceId });
  const held = await heldInDatabase(deps, flowId);
  gates.sort((a, b) => b.queued - a.queued || b.oldestWaitSeconds - a.oldestWaitSeconds);
  const seconds = (value: number) => Math.round(value * 10) / 10;
  return {
    queued: gates.reduce((sum, gate) => sum + gate.queued, 0),
    oldest_wait_seconds: seconds(Math.max(0, ...gates.map((gate) => gate.oldestWaitSeconds))),
    keys: gates.slice(0, FLOW_QUEUE_MAX_KEYS).map((gate) => ({
      key: gate.key,
      queued: gate.queued,
      running: gate.holding + (gate.key === null ? 0 : (held.get(slotKeyHash(gate.key)) ?? 0)),
      limit: gate.limit,
      oldest_wait_seconds: seconds(gate.oldestWaitSeconds),
    })),
  };
}

/** The slots each key of the flow holds in the database, by the key's hash. */
async function heldInDatabase(deps: GateQueueDeps, flowId: string): Promise<Map<string, number>> {
  const rows = await deps.prisma.concurrencyKey.findMany({ where: { flowId }, select: { keyHash: true, held: true } });
  return new Map(rows.map((row) => [row.keyHash, row.held]));
}
