// One call of a hook: find the live hook, count the call, accept the request, start the run, and
// answer at once (202) or, in sync mode, once the run has ended within the trigger's time (or,
// with `stream`, as server-sent events with its agents' text as they write it).
import type { Request, Response } from "express";
import { z } from "zod";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import { parseDuration } from "../../../lib/duration.js";
import type { Logger } from "../../../lib/logger.js";
import type { HooksService } from "../../../core/hooks/hooks.service.js";
import type { LogsService } from "../../../core/runs/logs.service.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { runHasEnded } from "../../../core/contracts/run-flow.js";
import type { RateLimiter } from "../../../core/rate-limiter.js";
import type { RouteInput } from "../../http/openapi.js";
import { answerEndedRun, type HookAccepted } from "./hook-answers.js";
import { streamHookRun, wantsEventStream } from "./hook-stream.js";
import type { OpenStreams } from "../runs/run-event-stream.js";
import type { AgentTextListener } from "../../../lib/agent-text.js";
import { acceptHookRequest, droppedNamesShown, FLOW_HEADER_PREFIX, type AcceptedHookRequest } from "./hook-request.js";

export const hookParams = z.object({ token: z.string().max(100) });

export interface HookCallDeps {
  hooks: HooksService;
  clock: Clock;
  runs: RunsService;
  rateLimiter: RateLimiter;
  /** Where a sync answer's dropped headers are noted for the flow's author: the run's log. */
  logs: Pick<LogsService, "write">;
  logger: Pick<Logger, "warn">;
  config: Pick<Config, "HOOK_MAX_BODY_BYTES" | "HOOK_RATE_LIMIT" | "HOOK_MAX_OPEN_STREAMS">;
  /** The text of runs' agents as they write it, for a trigger with `stream`. */
  agentText: AgentTextListener;
  /** When it aborts (the process stops), open streamed answers end without `end`. */
  stopping?: AbortSignal;
}

export async function callHook(
  deps: HookCallDeps & { streams: OpenStreams },
  req: Request & { input: RouteInput<{ params: typeof hookParams; public: true }> },
  res: Response,
): Promise<void> {
  const { hooks, clock, runs, rateLimiter } = deps;
  const { flowId, workspaceId, entry } = await hooks.find(req.input.params.token);
  // Every request to a live hook counts, refused ones included, so guessing secrets is slow too:
  // an accepted one in the statement that records its run, a refused one on its own.
  const quota = rateLimiter.quota(
    `hook:${flowId}`,
    60_000,
    deps.config.HOOK_RATE_LIMIT,
    `This hook takes at most ${deps.config.HOOK_RATE_LIMIT} requests a minute`,
  );
  let request: AcceptedHookRequest;
  try {
    request = acceptHookRequest(entry.config, req, clock.now());
  } catch (error) {
    await quota.countAlone();
    throw error;
  }
  const { config, key } = request;
  const options = {
    trigger: entry.type,
    idempotencyKey: key === undefined ? undefined : `hook:${flowId}:${key}`,
    requestFingerprint: request.fingerprint,
    idempotencyWindowMs: parseDuration(config.dedupe.window),
    quota,
  };
  const accepted = ({ run, replayed }: { run: { id: string }; replayed: boolean }): HookAccepted => ({
    run_id: run.id,
    status_url: `/api/runs/${run.id}`,
    deduplicated: replayed,
  });
  if (config.mode === "sync" && config.stream && wantsEventStream(req)) {
    const start = { workspaceId, flowId, input: request.input, options, timeoutMs: config.stream_timeout_ms };
    return streamHookRun(deps, res, start, accepted);
  }
  if (config.mode === "sync") {
    const started = await runs.startFromTriggerAndWait(
      workspaceId,
      flowId,
      request.input,
      options,
      config.sync_timeout_ms,
    );
    if (runHasEnded(started.last.status)) {
      const runId = started.run.id;
      const noteDropped = (names: string[]) =>
        noteDroppedHeaders(deps, { workspaceId, runId, nodeId: entry.id }, names);
      return answerEndedRun(res, config, accepted(started), started.last, noteDropped);
    }
    res.status(202).json(accepted(started));
    return;
  }
  res.status(202).json(accepted(await runs.startFromTrigger(workspaceId, flowId, request.input, options)));
}

/**
 * Tells the flow's author, in the run's log (at the trigger node, whose config asks for the flow's
 * answer), which headers its answer set that were not sent: names only, never values. A failed
 * write does not hold the answer back.
 */
async function noteDroppedHeaders(
  { logs, logger }: Pick<HookCallDeps, "logs" | "logger">,
  at: { workspaceId: string; runId: string; nodeId: string },
  names: string[],
): Promise<void> {
  const shown = droppedNamesShown(names);
  await logs
    .write({
      ...at,
      level: "warn",
      message:
        `The hook's answer left out ${names.length === 1 ? "a header" : `${names.length} headers`} the flow set ` +
        `(${shown.join(", ")}${names.length > shown.length ? ", ..." : ""}): a flow's answer sends only Content-Type, ` +
        `Content-Language, Cache-Control, Expires, ETag, Last-Modified, Vary, Retry-After, Location and ` +
        `${FLOW_HEADER_PREFIX}* headers, with printable ASCII values of at most 1,000 characters`,
      data: { dropped_headers: shown, dropped_count: names.length },
    })
    .catch((err: unknown) => logger.warn({ err, run_id: at.runId }, "could not note a hook answer's dropped headers"));
}
