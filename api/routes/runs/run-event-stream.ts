// The run page's live updates as server-sent events (GET /api/runs/{id}/events): the streams
// open in this process, and what one stream writes.
import type { Response } from "express";
import type { RunWatcher } from "../../../core/runs/run-watch.js";
import { HttpError } from "../../http/errors.js";

/** Open streams per user and API process: the dashboard opens one per tab, and polls beyond this. */
export const MAX_STREAMS_PER_USER = 5;

/** The open streams of this process: counted per user, and all ended when the process starts to stop. */
export class OpenStreams {
  private readonly perUser = new Map<string, number>();
  /** How to end each open stream (one listener on `stopping` for all of them). */
  private readonly enders = new Set<() => void>();

  constructor(private readonly stopping?: AbortSignal) {
    stopping?.addEventListener("abort", () => this.enders.forEach((end) => end()), { once: true });
  }

  /** Counts a new stream of the user, ended by `end` if the process stops; 429 past the limit, 503 while stopping. */
  admit(userId: string, end: () => void): { release(): void } {
    const streams = this.perUser.get(userId) ?? 0;
    if (streams >= MAX_STREAMS_PER_USER) {
      throw new HttpError(
        429,
        "too_many_streams",
        `At most ${MAX_STREAMS_PER_USER} live run streams at once: poll instead`,
      );
    }
    if (this.stopping?.aborted) throw new HttpError(503, "shutting_down", "The server is stopping: poll instead");
    this.perUser.set(userId, streams + 1);
    this.enders.add(end);
    return {
      release: () => {
        this.enders.delete(end);
        const left = (this.perUser.get(userId) ?? 1) - 1;
        if (left > 0) this.perUser.set(userId, left);
        else this.perUser.delete(userId);
      },
    };
  }
}

/** The headers of every event stream the API answers (runs, agent runs, streamed hooks). */
export const EVENT_STREAM_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  // The connection ends with the stream: nothing (a shutdown least of all) waits for it to go idle.
  Connection: "close",
  // Proxies that buffer (nginx) pass the events on as they come.
  "X-Accel-Buffering": "no",
} as const;

/** One server-sent event: its name and its data as JSON. */
export const eventText = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Writes the run's states as `state` events, at once and at each change, then `end` unless the
 * stream was given up (`signal`); a comment every `heartbeatMs` keeps proxies and the browser
 * from taking a quiet stream for a dead one. Throws before any header for a run it cannot show.
 */
export async function writeRunEvents(
  { watcher, heartbeatMs }: { watcher: RunWatcher; heartbeatMs: number },
  res: Response,
  run: { workspaceId: string; runId: string },
  signal: AbortSignal,
): Promise<void> {
  const changes = watcher.changes(run.workspaceId, run.runId, signal);
  // The first state comes before the headers: another workspace's run is a plain 404.
  const first = await changes.next();
  res.writeHead(200, EVENT_STREAM_HEADERS);
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), heartbeatMs);
  try {
    const send = (event: string, data: unknown) => res.write(eventText(event, data));
    let last = first.done ? undefined : first.value;
    if (last) send("state", last);
    for await (const state of changes) {
      last = state;
      send("state", state);
    }
    if (!signal.aborted) send("end", { status: last?.run.status ?? null });
  } finally {
    clearInterval(heartbeat);
  }
}
