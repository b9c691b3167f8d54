// GET /api/agent/runs/{id}/events: an agent run's model text as it is written, as server-sent
// events. `text` carries `{number, seq, text}` (the model call's step number, the piece's order,
// the piece), `end` the run's final status; the stream closes then. Streaming never changes what
// is recorded: the steps (GET /api/agent/runs/{id}) keep each whole answer once.
import type { Request, Response } from "express";
import { z } from "zod";
import type { AgentService } from "../../../core/agents/agent.service.js";
import { actorId } from "../../../core/workspaces/actor.js";
import type { AgentTextListener } from "../../../lib/agent-text.js";
import type { RunEndListener } from "../../../lib/run-end-notices.js";
import type { Caller } from "../../http/bearer-token.js";
import type { DeclareRoute } from "../../http/openapi.js";
import { EVENT_STREAM_HEADERS, eventText, OpenStreams } from "../runs/run-event-stream.js";
import { agentRunIdSchema } from "./agent.schema.js";

/**
 * The run's end wakes the stream (its end notice, lib/run-end-notices.ts); without one, its status
 * is read again this often all the same, for an end that announced nothing (a start refused).
 */
const STATUS_RECHECK_MS = 60_000;
const HEARTBEAT_MS = 15_000;

export interface AgentEventDeps {
  agents: AgentService;
  agentText: AgentTextListener;
  /** Wakes an open stream when its run's end is announced. */
  runEnds: RunEndListener;
  /** When it aborts (the process stops), open streams end without `end`. */
  stopping?: AbortSignal;
}

export function agentEventRoute(route: DeclareRoute, deps: AgentEventDeps) {
  const streams = new OpenStreams(deps.stopping);
  route(
    {
      method: "get",
      path: "/runs/:id/events",
      scope: "read",
      summary:
        "An agent run's model text as it is written (text/event-stream): `text` events of {number, seq, text}, " +
        "`end` with the run's status once it has ended; a comment every 15 s. What is recorded does not change",
      params: z.object({ id: agentRunIdSchema }),
      responses: {
        200: "An event stream (text/event-stream), closed after the run has ended",
        404: "No such agent run",
        429: "Too many open streams for this user (or API token) in this API process: poll instead (Retry-After)",
        503: "The server is stopping: poll instead",
      },
    },
    async (req, res) => {
      const { auth, workspaceId, params } = req.input;
      try {
        await streamAgentText(deps, streams, { req, res, auth, workspaceId, id: params.id });
      } catch (err) {
        // Once the stream is open, the client falls back to polling when it ends without `end`.
        if (!res.headersSent) throw err;
      }
    },
  );
}

async function streamAgentText(
  { agents, agentText, runEnds }: AgentEventDeps,
  streams: OpenStreams,
  { req, res, auth, workspaceId, id }: { req: Request; res: Response; auth: Caller; workspaceId: string; id: string },
) {
  // Watched from before the first read: an end announced after it is not missed.
  const watch = await runEnds.watch(id);
  let heartbeat: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  const aborted = new AbortController();
  const gone = () => aborted.abort();
  let stream: { release(): void } | undefined;
  try {
    // Another workspace's run is a plain 404, before any header.
    let status = await agents.status(workspaceId, id);
    stream = streams.admit(actorId(auth), gone);
    req.on("close", gone);
    res.writeHead(200, EVENT_STREAM_HEADERS);
    // Sent now, not with the first piece: the client knows at once that its stream is open.
    res.flushHeaders();
    const send = (event: string, data: unknown) => res.write(eventText(event, data));
    heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
    unsubscribe = await agentText.subscribe(id, (piece) =>
      send("text", { number: piece.number, seq: piece.seq, text: piece.text }),
    );
    const read = () => agents.status(workspaceId, id);
    const ended = (current: string) => current !== "running";
    while (status === "running" && !aborted.signal.aborted) {
      status = await watch.until(STATUS_RECHECK_MS, read, ended, { fresh: true, signal: aborted.signal });
    }
    if (!aborted.signal.aborted) send("end", { status });
  } finally {
    watch.close();
    clearInterval(heartbeat);
    unsubscribe?.();
    req.off("close", gone);
    stream?.release();
    aborted.abort();
    if (res.headersSent) res.end();
  }
}
