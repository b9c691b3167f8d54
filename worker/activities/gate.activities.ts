// The concurrency gates' activities (docs/engine.md, "Concurrency gates"): a run asks its gate for
// a slot, starting the gate if it is not running (signalWithStart), and stores `queued` while it
// waits; a gate asks which of its holders have ended without giving their slot back, and how many
// slots the database holds.
import { Context } from "@temporalio/activity";
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { RequestSlotInput, RequestSlotResult } from "../../core/contracts/concurrency-gate.js";
import { requestGateSlot } from "../../core/engine/concurrency-gates.js";
import {
  DB_SLOT_START_PATIENCE_MS,
  dbSlotHolders,
  freeDbSlots,
  takeDbSlot,
} from "../../core/engine/concurrency-slots.js";
import { markRunGranted, markRunQueued } from "../../core/runs/records/run-queued.js";
import type { PrismaClient } from "../../lib/db.js";

export interface GateActivityDeps {
  /** The process's Temporal client (lazy-temporal-client.ts). */
  temporal: () => Promise<Client>;
  prisma: PrismaClient;
}

/** Of `runIds`, the runs whose workflow is no longer running (or was never there). */
async function endedWorkflows(client: Client, runIds: string[]): Promise<string[]> {
  const ended: string[] = [];
  for (const runId of runIds) {
    Context.current().heartbeat();
    try {
      const { status } = await client.workflow.getHandle(runId).describe();
      if (status.name !== "RUNNING") ended.push(runId);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) ended.push(runId);
      else throw error;
    }
  }
  return ended;
}

export function createGateActivities({ temporal, prisma }: GateActivityDeps) {
  return {
    /**
     * Asks the gate of the run's flow and key for a slot: the gate signals the grant to the run.
     * The run is first counted in the database as sent to the gate (a repeat counts nothing), so
     * that no start takes a database slot ahead of it.
     */
    async requestSlot(input: RequestSlotInput): Promise<RequestSlotResult> {
      if (!input.throttle) await takeDbSlot(prisma, input, { gateOnly: true });
      return requestGateSlot(await temporal(), Context.current().info.taskQueue, {
        ...input,
        dbCounted: !input.throttle,
      });
    },

    /** The run waits at its gate: stored `queued`. */
    markRunQueued: ({ runId }: { runId: string }): Promise<void> => markRunQueued(prisma, runId),

    /** The run got its slot: stored `running` again. */
    markRunGranted: ({ runId }: { runId: string }): Promise<void> => markRunGranted(prisma, runId),

    /** Of `runIds`, the runs whose workflow is no longer running (or was never there). */
    async endedRuns({ runIds }: { runIds: string[] }): Promise<string[]> {
      return endedWorkflows(await temporal(), runIds);
    },

    /**
     * The slots of a flow and key held in the database; with `checkEnded`, the rows of runs whose
     * workflow no longer runs (database holders, and runs sent to the gate whose record ended)
     * are freed first.
     */
    async dbSlotsHeld(input: { flowId: string; keyHash: string; checkEnded?: boolean }): Promise<number> {
      const rows = await dbSlotHolders(prisma, input);
      const held = rows.filter((row) => row.inDb).length;
      const due = Date.now() - DB_SLOT_START_PATIENCE_MS;
      const old = rows.filter((row) => row.takenAt.getTime() < due);
      if (!input.checkEnded || old.length === 0) return held;
      const ended = new Set(
        await endedWorkflows(
          await temporal(),
          old.map((row) => row.runId),
        ),
      );
      await freeDbSlots(prisma, [...ended]);
      return held - old.filter((row) => row.inDb && ended.has(row.runId)).length;
    },
  };
}

export type GateActivities = ReturnType<typeof createGateActivities>;
