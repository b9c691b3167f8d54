import { z } from "zod";
import type { RunWatcher } from "../../../core/runs/run-watch.js";
import type { Logger } from "../../../lib/logger.js";
import { HttpError } from "../../http/errors.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { runIdSchema } from "./runs.schema.js";

/** A comment line this often keeps proxies and the browser from taking a quiet stream for a dead one. */
export const HEARTBEAT_MS = 15_000;
/** Open streams per user and API process: the dashboard opens one per tab, and polls beyond this. */
export const MAX_STREAMS_PER_USER = 5;

const runParams = z.object({ id: runIdSchema });

/**
 * GET /api/runs/:id/events: the run page's live updates as server-sent events. `state` carries
 * `{run, steps}` (the bodies of GET /api/runs/{id} and /steps) at once and at every change; `end`
 * follows the final state, and the stream closes.
 */
export function createRunEventsRouter(
  {
    watcher,
    logger,
    heartbeatMs = HEARTBEAT_MS,
    stopping,
  }: {
    watcher: RunWatcher;
    logger: Logger;
    heartbeatMs?: number;
    /** When it aborts (the process stops), open streams end without `end`: the page polls meanwhile. */
    stopping?: AbortSignal;
  },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/runs", "runs");
  const open = new Map<string, number>();
  /** How to end each open stream: all of them end when the process starts to stop (one listener). */
  const enders = new Set<() => void>();
  stopping?.addEventListener("abort", () => enders.forEach((end) => end()), { once: true });

  route(
    {
      method: "get",
      path: "/:id/events",
      summary:
        "Live updates of a run (text/event-stream): `state` events of {run, steps} at once and at each change, " +
        "`end` after the final state; a comment every 15 s",
      params: runParams,
      responses: {
        200: "An event stream (text/event-stream), closed after the run has ended",
        404: "No such run",
        429: "Too many open streams for this user: poll instead",
        503: "The server is stopping: poll instead (an open stream ends then, without `end`)",
      },
    },
    async (req, res) => {
      const { auth, workspaceId, params } = req.input;
      const userId = auth.user.id;
      const streams = open.get(userId) ?? 0;
      if (streams >= MAX_STREAMS_PER_USER) {
        throw new HttpError(
          429,
          "too_many_streams",
          `At most ${MAX_STREAMS_PER_USER} live run streams at once: poll instead`,
        );
      }
      if (stopping?.aborted) throw new HttpError(503, "shutting_down", "The server is stopping: poll instead");
      open.set(userId, streams + 1);
      const aborted = new AbortController();
      const gone = () => aborted.abort();
      req.on("close", gone);
      enders.add(gone);
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        const changes = watcher.changes(workspaceId, params.id, aborted.signal);
        // The first state comes before the headers: another workspace's run is a plain 404.
        const first = await changes.next();
        res.writeHead(200, {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-cache, no-transform",
          // The connection ends with the stream: nothing (a shutdown least of all) waits for it to go idle.
          Connection: "close",
          // Proxies that buffer (nginx) pass the events on as they come.
          "X-Accel-Buffering": "no",
        });
        heartbeat = setInterval(() => res.write(": heartbeat\n\n"), heartbeatMs);
        const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        let last = first.done ? undefined : first.value;
        if (last) send("state", last);
        for await (const state of changes) {
          last = state;
          send("state", state);
        }
        if (!aborted.signal.aborted) send("end", { status: last?.run.status ?? null });
      } catch (err) {
        if (!res.headersSent) throw err;
        // The stream is open: the client falls back to polling when it ends without `end`.
        logger.warn({ err, runId: params.id }, "run event stream failed");
      } finally {
        clearInterval(heartbeat);
        req.off("close", gone);
        enders.delete(gone);
        aborted.abort();
        const left = (open.get(userId) ?? 1) - 1;
        if (left > 0) open.set(userId, left);
        else open.delete(userId);
        if (res.headersSent) res.end();
      }
    },
  );

  return router;
}
