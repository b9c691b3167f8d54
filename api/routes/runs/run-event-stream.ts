// The run page's live updates as server-sent events (GET /api/runs/{id}/events): the streams
// open in this process, and what one stream writes.
import type { Response } from "express";
import type { RunWatcher } from "../../../core/runs/run-watch.js";
import { HttpError } from "../../http/errors.js";

/** Open streams per user and API process: the dashboard opens one per tab, and polls beyond this. */
export const MAX_STREAMS_PER_USER = 5;

/** How long a caller refused for too many open streams is told to wait (Retry-After, seconds). */
export const STREAM_RETRY_AFTER_SECONDS = 10;

/** How many streams one holder (a user, a hook) may keep open, and what a refusal says. */
export interface StreamLimit {
  max: number;
  refusal: string;
}

const RUN_STREAM_LIMIT: StreamLimit = {
  max: MAX_STREAMS_PER_USER,
  refusal: `At most ${MAX_STREAMS_PER_USER} live run streams at once: poll instead`,
};

/** The open streams of this process: counted per holder, and all ended when the process starts to stop. */
export class OpenStreams {
  private readonly perHolder = new Map<string, number>();
  /** How to end each open stream (one listener on `stopping` for all of them). */
  private readonly enders = new Set<() => void>();

  constructor(
    private readonly stopping?: AbortSignal,
    private readonly limit: StreamLimit = RUN_STREAM_LIMIT,
  ) {
    stopping?.addEventListener("abort", () => this.enders.forEach((end) => end()), { once: true });
  }

  /** The streams `holder` has open now. */
  count(holder: string): number {
    return this.perHolder.get(holder) ?? 0;
  }

  /**
   * Counts a new stream of the holder, ended by `end` if the process stops; 429 (Retry-After)
   * past the limit, 503 while stopping. Its place is free again once `release` is called.
   */
  admit(holder: string, end: () => void): { release(): void } {
    const streams = this.count(holder);
    if (streams >= this.limit.max) {
      const retry = { "Retry-After": String(STREAM_RETRY_AFTER_SECONDS) };
      throw new HttpError(429, "too_many_streams", this.limit.refusal, {}, retry);
    }
    if (this.stopping?.aborted) throw new HttpError(503, "shutting_down", "The server is stopping: poll instead");
    this.perHolder.set(holder, streams + 1);
    this.enders.add(end);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.enders.delete(end);
        const left = this.count(holder) - 1;
        if (left > 0) this.perHolder.set(holder, left);
        else this.perHolder.delete(holder);
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
