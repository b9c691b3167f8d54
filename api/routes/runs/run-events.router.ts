import { z } from "zod";
import type { RunWatcher } from "../../../core/runs/run-watch.js";
import type { Logger } from "../../../lib/logger.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { OpenStreams, writeRunEvents } from "./run-event-stream.js";
import { runIdSchema } from "./runs.schema.js";
import { actorId } from "../../../core/workspaces/actor.js";

export { MAX_STREAMS_PER_USER } from "./run-event-stream.js";

/** A comment line this often keeps proxies and the browser from taking a quiet stream for a dead one. */
export const HEARTBEAT_MS = 15_000;

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
  const streams = new OpenStreams(stopping);

  route(
    {
      method: "get",
      path: "/:id/events",
      scope: "read",
      summary:
        "Live updates of a run (text/event-stream): `state` events of {run, steps} at once and at each change, " +
        "`end` after the final state; a comment every 15 s",
      params: runParams,
      responses: {
        200: "An event stream (text/event-stream), closed after the run has ended",
        404: "No such run",
        429: "Too many open streams for this user (or API token) in this API process: poll instead (Retry-After)",
        503: "The server is stopping: poll instead (an open stream ends then, without `end`)",
      },
    },
    async (req, res) => {
      const { auth, workspaceId, params } = req.input;
      const aborted = new AbortController();
      const gone = () => aborted.abort();
      const stream = streams.admit(actorId(auth), gone);
      req.on("close", gone);
      try {
        await writeRunEvents({ watcher, heartbeatMs }, res, { workspaceId, runId: params.id }, aborted.signal);
      } catch (err) {
        if (!res.headersSent) throw err;
        // The stream is open: the client falls back to polling when it ends without `end`.
        logger.warn({ err, runId: params.id }, "run event stream failed");
      } finally {
        req.off("close", gone);
        stream.release();
        aborted.abort();
        if (res.headersSent) res.end();
      }
    },
  );

  return router;
}
