import { RunRunning } from "./run-errors.js";
import { findRun, type RunReadDeps } from "./run-reads.js";

/** Deletes an ended run and its log entries; a running run is refused. */
export async function removeRun(deps: RunReadDeps, workspaceId: string, id: string): Promise<void> {
  const { prisma } = deps;
  const run = await findRun(deps, workspaceId, id);
  if (run.status === "running") {
    throw new RunRunning();
  }
  await prisma.$transaction([
    prisma.logEntry.deleteMany({ where: { runId: id, workspaceId } }),
    prisma.run.deleteMany({ where: { id, workspaceId } }),
  ]);
}
