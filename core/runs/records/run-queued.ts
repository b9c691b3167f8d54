// A run of a flow with `concurrency` or `throttle` that waits at its gate is stored `queued`, and
// `running` again once granted (worker/workflows/run-flow/concurrency-slot.ts calls both). Each
// changes only the status it expects: a run that ended meanwhile (cancelled while it waited) keeps
// its end.
import type { PrismaClient } from "../../../lib/db.js";

/** The run waits at its gate: `queued` while it is still `running`. */
export async function markRunQueued(prisma: PrismaClient, runId: string): Promise<void> {
  await prisma.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "queued" } });
}

/** Its gate granted it a slot: `running` again while it is still `queued`. */
export async function markRunGranted(prisma: PrismaClient, runId: string): Promise<void> {
  await prisma.run.updateMany({ where: { id: runId, status: "queued" }, data: { status: "running" } });
}
