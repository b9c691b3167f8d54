// A flow's queue as its editor page shows it (GET /api/flows/{id}/queue): per key, the runs
// waiting and holding a slot now and how long the oldest waiting one has waited. Read from the
// flow's running gates (core/engine/gate-queues.ts) and from the slots its keys hold in the
// database (core/engine/concurrency-slots.ts): a run that found its key free never meets a gate,
// so a key whose runs all hold database slots has no gate and is listed from the database alone,
// its key shown only when it is the flow's one key ("", no key template), since the database
// keeps the key's hash, not the key (run data). Keys with the most runs waiting first.
// One reading asks Temporal's visibility for the flow's gates and queries each gate (a workflow
// task on a worker each), so each API process answers a flow's reading again from memory for
// FLOW_QUEUE_CACHE.ttlMs (every open editor asks every 3 s; cachedFlowQueue).
import { storedDefinition } from "../../contracts/flow-definition.js";
import { slotKeyHash } from "../../engine/concurrency-slots.js";
import { readGates, type GateQueueDeps } from "../../engine/gate-queues.js";
import { findFlow } from "../../flows/find-flow.js";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";

/** Keys listed at most (the totals count every gate read). */
export const FLOW_QUEUE_MAX_KEYS = 20;

export interface FlowQueueView {
  queued: number;
  oldest_wait_seconds: number;
  keys: Array<{ key: string | null; queued: number; running: number; limit: number; oldest_wait_seconds: number }>;
}

type KeyQueue = FlowQueueView["keys"][number];

/**
 * How long an API process answers a flow's queue from its last reading, and how many flows'
 * readings it keeps (the oldest dropped first).
 */
export const FLOW_QUEUE_CACHE = { ttlMs: 2_000, maxFlows: 1_000 } as const;

type ReadFlowQueue = (workspaceId: string, flowId: string) => Promise<FlowQueueView>;

/**
 * `read` answered from memory for `ttlMs` after each reading of a flow (per workspace: another
 * workspace's ask reads for itself, and gets its 404): reads of one flow within the window share
 * one reading, one still under way included. A failed reading is not kept; one under way for
 * longer than `ttlMs` no longer holds others back.
 */
export function cachedFlowQueue(
  read: ReadFlowQueue,
  clock: Clock,
  limits: { ttlMs: number; maxFlows: number } = FLOW_QUEUE_CACHE,
): ReadFlowQueue {
  const readings = new Map<string, { answer: Promise<FlowQueueView>; until: number }>();
  return (workspaceId, flowId) => {
    const key = `${workspaceId}/${flowId}`;
    const kept = readings.get(key);
    if (kept && kept.until > clock.now().getTime()) return kept.answer;
    readings.delete(key);
    const reading = { answer: read(workspaceId, flowId), until: clock.now().getTime() + limits.ttlMs };
    readings.set(key, reading);
    reading.answer.then(
      () => {
        reading.until = clock.now().getTime() + limits.ttlMs;
      },
      () => {
        if (readings.get(key) === reading) readings.delete(key);
      },
    );
    // A Map iterates in insertion order: the first keys are the oldest readings.
    for (const oldest of readings.keys()) {
      if (readings.size <= limits.maxFlows) break;
      readings.delete(oldest);
    }
    return reading.answer;
  };
}

/** The flow's queue now; FlowNotFound for another workspace's flow. */
export async function flowQueue(
  deps: GateQueueDeps & { config: Pick<Config, "TEMPORAL_TASK_QUEUE"> },
  workspaceId: string,
  flowId: string,
): Promise<FlowQueueView> {
  const flow = await findFlow(deps.prisma, workspaceId, flowId);
  const gates = await readGates(deps, deps.config.TEMPORAL_TASK_QUEUE, { flowId, workspaceId });
  const held = await heldInDatabase(deps, flowId);
  const seconds = (value: number) => Math.round(value * 10) / 10;
  const keys: KeyQueue[] = gates.map((gate) => {
    // A gate's id ends with the first 32 hex digits of its key's SHA-256, as the database's rows.
    const hashStart = gate.gateId.slice(-32);
    const inDatabase = [...held].find(([hash]) => hash.startsWith(hashStart));
    if (inDatabase) held.delete(inDatabase[0]);
    return {
      key: gate.key,
      queued: gate.queued,
      running: gate.holding + (inDatabase?.[1] ?? 0),
      limit: gate.limit,
      oldest_wait_seconds: seconds(gate.oldestWaitSeconds),
    };
  });
  const limit = storedDefinition(flow.definition).concurrency?.limit ?? 0;
  for (const [hash, running] of held) {
    keys.push({ key: hash === slotKeyHash("") ? "" : null, queued: 0, running, limit, oldest_wait_seconds: 0 });
  }
  keys.sort((a, b) => b.queued - a.queued || b.oldest_wait_seconds - a.oldest_wait_seconds || b.running - a.running);
  return {
    queued: keys.reduce((sum, key) => sum + key.queued, 0),
    oldest_wait_seconds: Math.max(0, ...keys.map((key) => key.oldest_wait_seconds)),
    keys: keys.slice(0, FLOW_QUEUE_MAX_KEYS),
  };
}

/** The slots each key of the flow holds in the database now, by the key's hash (keys holding none left out). */
async function heldInDatabase(deps: GateQueueDeps, flowId: string): Promise<Map<string, number>> {
  const rows = await deps.prisma.concurrencyKey.findMany({
    where: { flowId, held: { gt: 0 } },
    select: { keyHash: true, held: true },
  });
  return new Map(rows.map((row) => [row.keyHash, row.held]));
}
