// /api/hooks/test/{token}: a hook trigger's test address (core/hooks/test-listens.ts). Its next
// request is captured as the trigger's test data, credentials stripped as a run's input is
// (cookies, authorization), and answered 200 with a short JSON; it starts no run. Public as the
// hook is: the token is the authority, used once; bodies as large as a hook's, and each source
// address calls at most HOOK_RATE_LIMIT test addresses a minute.
import type { Request, Response } from "express";
import { z } from "zod";
import type { Config } from "../../../lib/config.js";
import type { TestListens } from "../../../core/hooks/test-listens.js";
import type { RateLimiter } from "../../../core/rate-limiter.js";
import type { RouteInput } from "../../http/openapi.js";
import { readBody, runInputOf } from "./hook-request.js";

export const testCaptureParams = z.object({ token: z.string().max(100) });

export interface TestCaptureDeps {
  testListens: TestListens;
  rateLimiter: RateLimiter;
  config: Pick<Config, "HOOK_RATE_LIMIT">;
}

export async function captureTestEvent(
  deps: TestCaptureDeps,
  req: Request & { input: RouteInput<{ params: typeof testCaptureParams; public: true }> },
  res: Response,
): Promise<void> {
  const max = deps.config.HOOK_RATE_LIMIT;
  await deps.rateLimiter
    .quota(`hook-test:${req.ip ?? "unknown"}`, 60_000, max, `At most ${max} test events a minute`)
    .countAlone();
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const json = (req.get("content-type") ?? "").toLowerCase().includes("json");
  const body = readBody(raw, json ? "json" : "text");
  const input = runInputOf(req, body, { type: "none" });
  await deps.testListens.capture(req.input.params.token, input);
  res.status(200).json({ captured: true });
}
