// /api/hooks/{token}: the public address of a flow whose entry node is an HTTP trigger. It answers
// exactly while the flow is active (core/hooks/hooks.service.ts). No cookies, no CORS: the token
// and the trigger's own verification are the only authority. A call's handling is hook-call.ts.
import express from "express";
import { HookNotFound } from "../../../core/hooks/hooks.service.js";
import { HttpError } from "../../http/errors.js";
import { documentedRouter, type ApiDocs, type RouteHandler } from "../../http/openapi.js";
import { callHook, hookParams, type HookCallDeps } from "./hook-call.js";
import { sandboxHookAnswers } from "./hook-request.js";
import { hookStreams } from "./hook-stream.js";
import { captureTestEvent, testCaptureParams, type TestCaptureDeps } from "./hook-test-capture.js";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The hook's route as the API documents it, the same for each method. */
const HOOK_ROUTE = {
  path: "/:token",
  summary: "Start the flow behind this hook token with the request as the run's input",
  params: hookParams,
  public: true,
  responses: {
    200: 'Sync mode: {run_id, status_url, deduplicated, status, output, error} of the ended run; with response "output", the flow\'s output (its status_code, body and allowed headers when it has that shape)',
    502: 'Sync mode with response "output": the run failed or was cancelled (run_failed), or its Location names another host than its trigger\'s redirect_hosts (hook_redirect_refused); run_id, status_url',
    202: "{run_id, status_url, deduplicated}: the run is durably started (or, for a repeated dedupe key, the run it started); sync mode when the wait ran out",
    400: "A body that is not UTF-8 (invalid_utf8) or does not parse as the trigger's body type",
    401: "Verification failed: no run",
    404: "No active hook at this address: no run",
    405: "Method not accepted by the trigger",
    409: "A dedupe key an earlier request used, with another method, path or body (idempotency_key_reused): nothing of that run is answered",
    413: "Body over HOOK_MAX_BODY_BYTES",
    429: "Over HOOK_RATE_LIMIT requests a minute for this flow, or (a streamed answer) HOOK_MAX_OPEN_STREAMS streams of this hook open (Retry-After)",
    503: "A streamed answer asked of a server that is stopping (shutting_down): ask again; no run",
  },
} as const;

/** A hook trigger's test address, the same for each method. */
const TEST_ROUTE = {
  path: "/test/:token",
  summary:
    "Capture this request as a hook trigger's test data (POST /api/flows/{id}/hook/test-listen opened the address): once, starting no run",
  params: testCaptureParams,
  public: true,
  responses: {
    200: "{captured: true}: the request (method, headers without cookies or authorization, query, body) is the listen's test data",
    400: "A body that is not UTF-8 (invalid_utf8), or JSON that does not parse",
    404: "No test address listens here: unknown, already used or expired",
    413: "Body over HOOK_MAX_BODY_BYTES",
    429: "Over HOOK_RATE_LIMIT test events a minute from this address (Retry-After)",
  },
} as const;

export function createHooksRouter(deps: HookCallDeps & TestCaptureDeps, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/hooks", "hooks");
  // Every answer below (202s, errors, the flow's own answers) is sandboxed.
  router.use(sandboxHookAnswers);
  const rawBody = express.raw({ type: () => true, limit: deps.config.HOOK_MAX_BODY_BYTES });
  const streams = hookStreams(deps.config.HOOK_MAX_OPEN_STREAMS, deps.stopping);
  const handle: RouteHandler<{ params: typeof hookParams; public: true }> = (req, res) =>
    callHook({ ...deps, streams }, req, res);
  const capture: RouteHandler<{ params: typeof testCaptureParams; public: true }> = (req, res) =>
    captureTestEvent(deps, req, res);
  for (const method of METHODS) route({ method, ...TEST_ROUTE }, rawBody, capture);
  for (const method of METHODS) route({ method, ...HOOK_ROUTE }, rawBody, handle);
  // Any other method (OPTIONS included: no CORS here) is refused without reaching the API's CORS.
  router.use("/:token", (_req, _res, next) => next(new HttpError(405, "method_not_allowed", "Method not accepted")));
  // Any other path under /api/hooks is no hook either (not a page of the API behind its session).
  router.use((_req, _res, next) => next(new HookNotFound()));
  return router;
}
