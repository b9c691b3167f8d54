import { z } from "zod";
import type { Config } from "../../../lib/config.js";
import type { WaitMember, WaitsService } from "../../../core/waits/waits.service.js";
import { auditContext, auditSource } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import type { AuthContext } from "../../../core/sessions/sessions.service.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { HttpError } from "../../http/errors.js";
import { jsonBody } from "../../http/json-body.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { rejectUnstorableText } from "../../http/storable-text.js";
import { sandboxHookAnswers } from "../hooks/hook-request.js";
import { agentRunIdSchema } from "../agents/agent.schema.js";
import { runIdSchema } from "../runs/runs.schema.js";
import {
  decisionSchema,
  listWaitsQuerySchema,
  resumeAnswerSchema,
  runWaitSchema,
  waitIdSchema,
  waitSchema,
} from "./waits.schema.js";

const memberOf = (auth: AuthContext): WaitMember => ({
  id: auth.user.id,
  name: auth.user.name,
  role: auth.workspace.role,
  workspaceId: auth.workspace.workspaceId,
});

const isWaitCursor = isTimeIdCursor("s");

/** /api/waits: the inbox of pending waits and decisions. */
export function createWaitsRouter({ waits }: { waits: WaitsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/waits", "waits");

  route(
    {
      method: "get",
      path: "/",
      scope: "session",
      summary:
        "The pending waits the caller may decide (approve, reject, or resume by URL), newest first: wait nodes' and agents' tool approvals",
      query: listWaitsQuerySchema,
      responses: {
        200: {
          description: "A page of waits",
          schema: z.object({ items: z.array(waitSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isWaitCursor);
      const rows = await waits.inbox(memberOf(req.input.auth), {
        limit: limit + 1,
        ...(after ? { after: { since: new Date(after.s), id: after.id } } : {}),
      });
      const { page, next_cursor } = keysetPage(rows, limit, (last) => ({ s: last.since, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/:id/decision",
      scope: "session",
      summary:
        "Approve or reject a pending approval (a wait node's or an agent's tool call), with an optional comment; answers once the run has taken it",
      params: z.object({ id: waitIdSchema }),
      body: decisionSchema,
      responses: {
        200: { description: "The decided wait", schema: waitSchema },
        403: "Role too low (waits:decide, or the node's least role), or not the member the node names",
        404: "No such wait",
        409: "wait_decided, wait_expired or wait_cancelled: the wait is settled; wait_wrong_mode: a resume wait",
        503: "Temporal did not take the decision (temporal_unavailable), or the wait is still starting (wait_starting)",
      },
    },
    authorize("waits:decide"),
    async (req, res) => {
      res.json(await waits.decide(memberOf(req.input.auth), req.input.params.id, req.input.body, auditContext(req)));
    },
  );

  return router;
}

/** /api/runs/{id}/waits: a run's waits, for its page. */
export function createRunWaitsRouter({ waits }: { waits: WaitsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/runs", "waits");
  route(
    {
      method: "get",
      path: "/:id/waits",
      scope: "session",
      summary: "The run's waits, oldest first, with the resume URL of a pending resume wait for members who may decide",
      params: z.object({ id: runIdSchema }),
      responses: {
        200: { description: "The waits", schema: z.object({ items: z.array(runWaitSchema) }) },
        404: "No such run",
      },
    },
    async (req, res) => {
      res.json({ items: await waits.ofRun(memberOf(req.input.auth), req.input.params.id) });
    },
  );
  return router;
}

/** /api/agent/runs/{id}/waits: an agent run's tool approvals, for its page. */
export function createAgentRunWaitsRouter({ waits }: { waits: WaitsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/agent", "waits");
  route(
    {
      method: "get",
      path: "/runs/:id/waits",
      scope: "session",
      summary: "The agent run's tool approvals (its waits), oldest first",
      params: z.object({ id: agentRunIdSchema }),
      responses: {
        200: { description: "The waits", schema: z.object({ items: z.array(waitSchema) }) },
        404: "No such agent run",
      },
    },
    async (req, res) => {
      res.json({ items: await waits.ofAgentRun(memberOf(req.input.auth), req.input.params.id) });
    },
  );
  return router;
}

/**
 * /api/waits/resume/{token}: public, like hooks: no session, cookies, CORS or CSRF; the token is
 * the only authority. Answers carry the hooks' sandbox headers.
 */
export function createWaitResumeRouter(
  { waits, config }: { waits: WaitsService; config: Pick<Config, "HOOK_MAX_BODY_BYTES"> },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/waits/resume", "waits");
  router.use(sandboxHookAnswers);
  const notFound = () => new HttpError(404, "not_found", "No wait to resume at this address");
  route(
    {
      method: "post",
      path: "/:token",
      summary: "Resume the wait whose resume URL this is; the JSON body becomes the wait node's output",
      params: z.object({ token: z.string().max(100) }),
      public: true,
      responses: {
        200: { description: "The run goes on: {run_id, status_url}", schema: resumeAnswerSchema },
        400: "A body that is not JSON, or not UTF-8 (invalid_utf8)",
        404: "No pending or settled wait at this address",
        409: "wait_decided (resumed already), wait_expired or wait_cancelled",
        413: "Body over HOOK_MAX_BODY_BYTES",
        415: "Not a JSON body",
        503: "Temporal did not take it (temporal_unavailable), or the wait is still starting (wait_starting)",
      },
    },
    ...jsonBody({ limit: `${config.HOOK_MAX_BODY_BYTES}b` }),
    rejectUnstorableText,
    async (req, res) => {
      res.json(await waits.resume(req.input.params.token, req.body ?? {}, auditSource(req)));
    },
  );
  router.use("/:token", (_req, _res, next) => next(new HttpError(405, "method_not_allowed", "Only POST resumes")));
  router.use((_req, _res, next) => next(notFound()));
  return router;
}
