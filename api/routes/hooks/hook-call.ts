// One call of a hook: find the live hook, count the call, accept the request, start the run, and
// answer at once (202) or, in sync mode, once the run has ended within the trigger's time.
import type { Request, Response } from "express";
import { z } from "zod";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import { parseDuration } from "../../../lib/duration.js";
import type { HooksService } from "../../../core/hooks/hooks.service.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import type { RateLimiter } from "../../http/rate-limiter.js";
import type { RouteInput } from "../../http/openapi.js";
import { answerEndedRun, type HookAccepted } from "./hook-answers.js";
import { acceptHookRequest, type AcceptedHookRequest } from "./hook-request.js";

export const hookParams = z.object({ token: z.string().max(100) });

export interface HookCallDeps {
  hooks: HooksService;
  clock: Clock;
  runs: RunsService;
  rateLimiter: RateLimiter;
  config: Pick<Config, "HOOK_MAX_BODY_BYTES" | "HOOK_RATE_LIMIT">;
}

export async function callHook(
  deps: HookCallDeps,
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
    idempotencyWindowMs: parseDuration(config.dedupe.window),
    quota,
  };
  const accepted = ({ run, replayed }: { run: { id: string }; replayed: boolean }): HookAccepted => ({
    run_id: run.id,
    status_url: `/api/runs/${run.id}`,
    deduplicated: replayed,
  });
  if (config.mode === "sync") {
    const started = await runs.startFromTriggerAndWait(
      workspaceId,
      flowId,
      request.input,
      options,
      config.sync_timeout_ms,
    );
    if (started.last.status !== "running") return answerEndedRun(res, config, accepted(started), started.last);
    res.status(202).json(accepted(started));
    return;
  }
  res.status(202).json(accepted(await runs.startFromTrigger(workspaceId, flowId, request.input, options)));
}
