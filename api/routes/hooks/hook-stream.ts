// A sync hook whose trigger has `stream` answering a caller that accepts text/event-stream:
// `run` once the run is started, `text` with each piece its agents write (ai.agent nodes), then
// `end` with what the sync answer carries, or `timeout` when the run outlives stream_timeout_ms.
// The pieces are watched from before the run starts; what is recorded does not change. Each hook
// holds at most HOOK_MAX_OPEN_STREAMS such answers open at once in a process (429 beyond).
import type { Request, Response } from "express";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { runHasEnded } from "../../../core/contracts/run-flow.js";
import type { AgentTextListener } from "../../../lib/agent-text.js";
import { newId } from "../../../lib/ids.js";
import { EVENT_STREAM_HEADERS, eventText, OpenStreams } from "../runs/run-event-stream.js";
import type { HookAccepted } from "./hook-answers.js";

/** Whether the caller asked for server-sent events (its Accept names text/event-stream). */
export const wantsEventStream = (req: Request) => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(req.get("accept") ?? "");

type TriggerStart = Parameters<RunsService["startFromTriggerAndWait"]>;

/** The open streamed answers of this process, per hook (its flow): at most HOOK_MAX_OPEN_STREAMS each. */
export const hookStreams = (max: number, stopping?: AbortSignal) =>
  new OpenStreams(stopping, {
    max,
    refusal: `This hook holds at most ${max} streamed answers open at once: try again later, or ask without streaming`,
  });

export interface HookStreamDeps {
  runs: RunsService;
  agentText: AgentTextListener;
  streams: OpenStreams;
}

/**
 * Takes a place among the hook's open streams (429 before anything starts when none is left),
 * then answers the stream; the place is free again once the stream has closed, whether it ended,
 * timed out, or its caller went away (which also stops the wait for the run's end).
 */
export async function streamHookRun(
  { runs, agentText, streams }: HookStreamDeps,
  res: Response,
  start: { workspaceId: string; flowId: string; input: TriggerStart[2]; options: TriggerStart[3]; timeoutMs: number },
  accepted: (answer: { run: { id: string }; replayed: boolean }) => HookAccepted,
): Promise<void> {
  const gone = new AbortController();
  const leave = () => gone.abort();
  let place: { release(): void };
  try {
    place = streams.admit(start.flowId, leave);
  } catch (error) {
    // Refused before any run: the request still counts against the hook's rate.
    await start.options.quota?.countAlone();
    throw error;
  }
  res.on("close", leave);
  const runId = newId("run");
  // Events before the headers (pieces that come before the start's answer) wait for them.
  const pending: string[] = [];
  let open = false;
  const send = (event: string, data: unknown) => {
    const text = eventText(event, data);
    if (open) res.write(text);
    else pending.push(text);
  };
  let stop = () => {};
  try {
    stop = await agentText.subscribe(runId, (piece) =>
      send("text", { agent_run_id: piece.agentRunId, number: piece.number, seq: piece.seq, text: piece.text }),
    );
    const started = await runs.startFromTriggerAndWait(
      start.workspaceId,
      start.flowId,
      start.input,
      start.options,
      start.timeoutMs,
      {
        runId,
        signal: gone.signal,
        onStarted: (answer) => {
          res.writeHead(200, EVENT_STREAM_HEADERS);
          open = true;
          res.write(eventText("run", accepted(answer)));
          pending.splice(0).forEach((text) => res.write(text));
        },
      },
    );
    const { status, output, error } = started.last;
    // A caller gone (or a server stopping) gets nothing more: the run goes on, at its status_url.
    if (gone.signal.aborted) return;
    if (!runHasEnded(status)) send("timeout", accepted(started));
    else send("end", { ...accepted(started), status, output, error });
  } catch (err) {
    // Once the stream is open, it ends without `end`: the caller follows the run's status_url.
    if (!res.headersSent) throw err;
  } finally {
    stop();
    res.off("close", leave);
    place.release();
    if (res.headersSent) res.end();
  }
}
