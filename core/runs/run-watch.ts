// Watching a run as it goes (the API's server-sent events): the run and its steps now, then again
// whenever they change, the last time once the run has ended. A run's end is announced at once by
// its end notice (lib/run-end-notices.ts); step writes announce nothing, so between notices a
// one-row fingerprint of the run's steps is read every `checkMs`.
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { RunEndListener } from "../../lib/run-end-notices.js";
import type { RunsService } from "./runs.service.js";

/** How often a watched run's steps are checked for changes between its notices. */
export const RUN_WATCH_CHECK_MS = 1000;

export interface RunState {
  run: Awaited<ReturnType<RunsService["get"]>>;
  steps: Awaited<ReturnType<RunsService["steps"]>>;
}

export function createRunWatcher({
  prisma,
  runEnds,
  runs,
  checkMs = RUN_WATCH_CHECK_MS,
}: {
  prisma: PrismaClient;
  runEnds: RunEndListener;
  runs: Pick<RunsService, "get" | "steps">;
  checkMs?: number;
}) {
  /** The run's status and each step's node, attempt and status in one string; null when the run is gone. */
  async function fingerprint(workspaceId: string, runId: string): Promise<string | null> {
    const [row] = await sqlQuery<{ key: string }>(
      prisma,
      Prisma.sql`
        SELECT r.status::text || '|' || coalesce(
          (SELECT string_agg(s.node_id || ':' || s.attempt || ':' || s.status::text, ',' ORDER BY s.node_id, s.attempt)
           FROM run_steps s WHERE s.run_id = r.id), '') AS key
        FROM runs r WHERE r.id = ${runId} AND r.workspace_id = ${workspaceId}`,
    );
    return row?.key ?? null;
  }

  return {
    /**
     * The run and its steps at once (RunNotFound for another workspace's run, before anything is
     * yielded), then at each change until the run has ended, is deleted, or `signal` aborts.
     */
    async *changes(workspaceId: string, runId: string, signal: AbortSignal): AsyncGenerator<RunState> {
      let seen: string | null = await fingerprint(workspaceId, runId);
      let state: RunState = { run: await runs.get(workspaceId, runId), steps: await runs.steps(workspaceId, runId) };
      yield state;
      // A queued run (waiting at its gate) has not ended either.
      while (!signal.aborted && (state.run.status === "running" || state.run.status === "queued")) {
        // Woken by the run's end notice, else after checkMs; returns at once when something changed.
        const key = await runEnds.waitForEnd(
          runId,
          checkMs,
          () => fingerprint(workspaceId, runId),
          (current) => current !== seen,
        );
        if (signal.aborted || key === null) return;
        if (key === seen) continue;
        seen = key;
        state = { run: await runs.get(workspaceId, runId), steps: await runs.steps(workspaceId, runId) };
        yield state;
      }
    },
  };
}

export type RunWatcher = ReturnType<typeof createRunWatcher>;
