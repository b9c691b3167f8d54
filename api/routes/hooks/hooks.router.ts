// /api/hooks/{token}: the public address of a flow whose entry node is an HTTP trigger. It answers
// exactly while the flow is active (read from the database on every request, so activation
// takes effect at once in every API process). No cookies, no CORS: the token and the trigger's
// own verification are the only authority.
import express, { type RequestHandler } from "express";
import { z } from "zod";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { FlowDefinition } from "../../../worker/flows/definition.js";
import { HOOK_TRIGGER_TYPES, hookTriggerConfig } from "../../../worker/nodes/http-trigger/http-trigger.node.js";
import { HttpError } from "../../http/errors.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import type { RunsService } from "../runs/runs.service.js";
import { dedupeKeyOf, readBody, runInputOf, verifyCaller } from "./hook-request.js";

const hookParams = z.object({ token: z.string().max(100) });
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export function createHooksRouter(
  deps: { prisma: PrismaClient; clock: Clock; runs: RunsService; config: Pick<Config, "HOOK_MAX_BODY_BYTES"> },
  docs: ApiDocs,
) {
  const { prisma, clock, runs } = deps;
  const { router, route } = documentedRouter(docs, "/api/hooks", "hooks");
  const rawBody = express.raw({ type: () => true, limit: deps.config.HOOK_MAX_BODY_BYTES });
  const notFound = () => new HttpError(404, "hook_not_found", "No active hook at this address");

  const handle: RequestHandler = async (req, res) => {
    const { token } = hookParams.parse(req.params);
    const flow = await prisma.flow.findUnique({
      where: { hookToken: token },
      select: { id: true, workspaceId: true, status: true, definition: true },
    });
    const entry =
      flow?.status === "active"
        ? (flow.definition as unknown as FlowDefinition).nodes.find((node) => HOOK_TRIGGER_TYPES.has(node.type))
        : undefined;
    if (!flow || !entry) throw notFound();
    const config = hookTriggerConfig.parse(entry.config ?? {});
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
    const { run, replayed } = await runs.startFromTrigger(
      flow.workspaceId,
      flow.id,
      runInputOf(req, body, config.verification),
      { trigger: entry.type, idempotencyKey: key === undefined ? undefined : `hook:${flow.id}:${key}` },
    );
    res.status(202).json({ run_id: run.id, status_url: `/api/runs/${run.id}`, deduplicated: replayed });
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
          202: "{run_id, status_url, deduplicated}: the run is durably started (or, for a repeated dedupe key, the run it started)",
          400: "A body that does not parse as the trigger's body type",
          401: "Verification failed: no run",
          404: "No active hook at this address: no run",
          405: "Method not accepted by the trigger",
          413: "Body over HOOK_MAX_BODY_BYTES",
        },
      },
      rawBody,
      handle,
    );
  }
  // Any other method (OPTIONS included: no CORS here) is refused without reaching the API's CORS.
  router.use("/:token", (_req, _res, next) => next(new HttpError(405, "method_not_allowed", "Method not accepted")));
  return router;
}
