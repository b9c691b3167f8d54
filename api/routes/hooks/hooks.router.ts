// /api/hooks/{token}: the public address of a flow whose entry node is an HTTP trigger. It answers
// exactly while the flow is active (core/hooks/hooks.service.ts). No cookies, no CORS: the token
// and the trigger's own verification are the only authority.
import express, { type Request } from "express";
import { z } from "zod";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import { HookNotFound, type HooksService } from "../../../core/hooks/hooks.service.js";
import { hookTriggerConfig } from "../../../core/nodes/http-trigger/http-trigger.node.js";
import { HttpError } from "../../http/errors.js";
import type { RateLimiter } from "../../http/rate-limiter.js";
import { documentedRouter, type ApiDocs, type RouteHandler } from "../../http/openapi.js";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { parseDuration } from "../../../lib/duration.js";
import {
  dedupeKeyOf,
  flowResponseOf,
  HOOK_ANSWER_HEADERS,
  readBody,
  refusedLocation,
  runInputOf,
  sandboxHookAnswers,
  verifyCaller,
} from "./hook-request.js";

const hookParams = z.object({ token: z.string().max(100) });
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export function createHooksRouter(
  deps: {
    hooks: HooksService;
    clock: Clock;
    runs: RunsService;
    rateLimiter: RateLimiter;
    config: Pick<Config, "HOOK_MAX_BODY_BYTES" | "HOOK_RATE_LIMIT">;
  },
  docs: ApiDocs,
) {
  const { hooks, clock, runs, rateLimiter } = deps;
  const { router, route } = documentedRouter(docs, "/api/hooks", "hooks");
  // Every answer below (202s, errors, the flow's own answers) is sandboxed.
  router.use(sandboxHookAnswers);
  const rawBody = express.raw({ type: () => true, limit: deps.config.HOOK_MAX_BODY_BYTES });

  /** The trigger's checks of a request (method, caller, body), and the run's input and dedupe key. */
  function acceptRequest(entryConfig: unknown, req: Request) {
    const config = hookTriggerConfig.parse(entryConfig ?? {});
    if (!(config.methods as string[]).includes(req.method === "HEAD" ? "GET" : req.method)) {
      throw new HttpError(
        405,
        "method_not_allowed",
        `This hook accepts ${config.methods.join(", ")}`,
        {},
        {
          Allow: config.methods.join(", "),
        },
      );
    }
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    verifyCaller(config.verification, req, raw, clock.now());
    const body = readBody(raw, config.body_type);
    const key = dedupeKeyOf(config.dedupe, req, body);
    return { config, key, input: runInputOf(req, body, config.verification) };
  }

  const handle: RouteHandler<{ params: typeof hookParams; public: true }> = async (req, res) => {
    const { flowId, workspaceId, entry } = await hooks.find(req.input.params.token);
    // Every request to a live hook counts, refused ones included, so guessing secrets is slow too:
    // an accepted one in the statement that records its run, a refused one on its own.
    const quota = rateLimiter.quota(
      `hook:${flowId}`,
      60_000,
      deps.config.HOOK_RATE_LIMIT,
      `This hook takes at most ${deps.config.HOOK_RATE_LIMIT} requests a minute`,
    );
    let request: ReturnType<typeof acceptRequest>;
    try {
      request = acceptRequest(entry.config, req);
    } catch (error) {
      await quota.countAlone();
      throw error;
    }
    const { config, key } = request;
    const { run, replayed } = await runs.startFromTrigger(workspaceId, flowId, request.input, {
      trigger: entry.type,
      idempotencyKey: key === undefined ? undefined : `hook:${flowId}:${key}`,
      idempotencyWindowMs: parseDuration(config.dedupe.window),
      quota,
    });
    const accepted = { run_id: run.id, status_url: `/api/runs/${run.id}`, deduplicated: replayed };
    if (config.mode === "sync") {
      const last = await runs.waitForEnd(workspaceId, run.id, config.sync_timeout_ms);
      const ended = last.status === "running" ? undefined : last;
      if (ended && config.response === "output") {
        if (ended.status !== "success") {
          throw new HttpError(
            502,
            "run_failed",
            `The run ${ended.status}: ${(ended.error as { message?: string } | null)?.message ?? "no output"}`,
            {
              run_id: run.id,
              status_url: accepted.status_url,
              status: ended.status,
            },
          );
        }
        const answer = flowResponseOf(ended.output);
        const refused = refusedLocation(answer.headers, config.redirect_hosts);
        if (refused !== undefined) {
          throw new HttpError(
            502,
            "hook_redirect_refused",
            `The flow answered with Location ${refused.slice(0, 200)}: a hook redirects only to a relative location or to a host of its trigger's redirect_hosts`,
            { run_id: run.id, status_url: accepted.status_url },
          );
        }
        // The server's headers go last: whatever the flow chose, they stand.
        res
          .status(answer.status)
          .set(answer.headers)
          .set(HOOK_ANSWER_HEADERS)
          .set("X-Run-Id", run.id)
          .json(answer.body);
        return;
      }
      if (ended) {
        res.status(200).json({ ...accepted, status: ended.status, output: ended.output, error: ended.error });
        return;
      }
    }
    res.status(202).json(accepted);
  };

  for (const method of METHODS) {
    route(
      {
        method,
        path: "/:token",
        summary: "Start the flow behind this hook token with the request as the run's input",
        params: hookParams,
        public: true,
        responses: {
          200: 'Sync mode: {run_id, status_url, deduplicated, status, output, error} of the ended run; with response "output", the flow\'s output (its status_code, body and headers when it has that shape)',
          502: 'Sync mode with response "output": the run failed or was cancelled (run_failed), or its Location names another host than its trigger\'s redirect_hosts (hook_redirect_refused); run_id, status_url',
          202: "{run_id, status_url, deduplicated}: the run is durably started (or, for a repeated dedupe key, the run it started); sync mode when the wait ran out",
          400: "A body that is not UTF-8 (invalid_utf8) or does not parse as the trigger's body type",
          401: "Verification failed: no run",
          404: "No active hook at this address: no run",
          405: "Method not accepted by the trigger",
          413: "Body over HOOK_MAX_BODY_BYTES",
          429: "Over HOOK_RATE_LIMIT requests a minute for this flow (Retry-After)",
        },
      },
      rawBody,
      handle,
    );
  }
  // Any other method (OPTIONS included: no CORS here) is refused without reaching the API's CORS.
  router.use("/:token", (_req, _res, next) => next(new HttpError(405, "method_not_allowed", "Method not accepted")));
  // Any other path under /api/hooks is no hook either (not a page of the API behind its session).
  router.use((_req, _res, next) => next(new HookNotFound()));
  return router;
}
