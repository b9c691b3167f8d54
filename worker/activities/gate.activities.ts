// The concurrency gates' activities (docs/engine.md, "Concurrency gates"): a run asks its gate for
// a slot, starting the gate if it is not running (signalWithStart), and stores `queued` while it
// waits; a gate asks which of its holders have ended without giving their slot back.
import { Context } from "@temporalio/activity";
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { RequestSlotInput, RequestSlotResult } from "../../core/contracts/concurrency-gate.js";
import { requestGateSlot } from "../../core/engine/concurrency-gates.js";
import { markRunGranted, markRunQueued } from "../../core/runs/records/run-queued.js";
import type { PrismaClient } from "../../lib/db.js";

export interface GateActivityDeps {
  /** The process's Temporal client (lazy-temporal-client.ts). */
  temporal: () => Promise<Client>;
  prisma: PrismaClient;
}

export function createGateActivities({ temporal, prisma }: GateActivityDeps) {
  return {
    /** Asks the gate of the run's flow and key for a slot: the gate signals the grant to the run. */
    async requestSlot(input: RequestSlotInput): Promise<RequestSlotResult> {
      return requestGateSlot(await temporal(), Context.current().info.taskQueue, input);
    },

    /** The run waits at its gate: stored `queued`. */
    markRunQueued: ({ runId }: { runId: string }): Promise<void> => markRunQueued(prisma, runId),

    /** The run got its slot: stored `running` again. */
    markRunGranted: ({ runId }: { runId: string }): Promise<void> => markRunGranted(prisma, runId),

    /** Of `runIds`, the runs whose workflow is no longer running (or was never there). */
    async endedRuns({ runIds }: { runIds: string[] }): Promise<string[]> {
      const client = await temporal();
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
    },
  };
}

export type GateActivities = ReturnType<typeof createGateActivities>;
