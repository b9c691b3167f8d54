// GET /api/agent/runs/{id}/events: an agent run's model text as it is written, as server-sent
// events. `text` carries `{number, seq, text}` (the model call's step number, the piece's order,
// the piece), `end` the run's final status; the stream closes then. Streaming never changes what
// is recorded: the steps (GET /api/agent/runs/{id}) keep each whole answer once.
import type { Request, Response } from "express";
import { z } from "zod";
import type { AgentService } from "../../../core/agents/agent.service.js";
import { actorId } from "../../../core/workspaces/actor.js";
import type { AgentTextListener } from "../../../lib/agent-text.js";
import type { Caller } from "../../http/bearer-token.js";
import type { DeclareRoute } from "../../http/openapi.js";
import { EVENT_STREAM_HEADERS, eventText, OpenStreams } from "../runs/run-event-stream.js";
import { agentRunIdSchema } from "./agent.schema.js";

/** How often the stream reads whether the run has ended. */
const STATUS_POLL_MS = 1000;
const HEARTBEAT_MS = 15_000;

export interface AgentEventDeps {
  agents: AgentService;
  agentText: AgentTextListener;
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
  { agents, agentText }: AgentEventDeps,
  streams: OpenStreams,
  { req, res, auth, workspaceId, id }: { req: Request; res: Response; auth: Caller; workspaceId: string; id: string },
) {
  // Another workspace's run is a plain 404, before any header.
  let status = await agents.status(workspaceId, id);
  const aborted = new AbortController();
  const gone = () => aborted.abort();
  const stream = streams.admit(actorId(auth), gone);
  req.on("close", gone);
  let heartbeat: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  try {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    const send = (event: string, data: unknown) => res.write(eventText(event, data));
    heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
    unsubscribe = await agentText.subscribe(id, (piece) =>
      send("text", { number: piece.number, seq: piece.seq, text: piece.text }),
    );
    while (status === "running" && !aborted.signal.aborted) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, STATUS_POLL_MS);
        aborted.signal.addEventListener("abort", () => (clearTimeout(timer), resolve(undefined)), { once: true });
      });
      if (!aborted.signal.aborted) status = await agents.status(workspaceId, id);
    }
    if (!aborted.signal.aborted) send("end", { status });
  } finally {
    clearInterval(heartbeat);
    unsubscribe?.();
    req.off("close", gone);
    stream.release();
    aborted.abort();
    if (res.headersSent) res.end();
  }
}
