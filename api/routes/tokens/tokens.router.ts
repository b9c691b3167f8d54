// /api/workspace/tokens: the workspace's API tokens, for admins and owners in a session (a token
// never creates, lists or revokes tokens). The token is answered once, at its creation.
import { z } from "zod";
import { auditContext, auditSource } from "../../http/audit-context.js";
import type { ApiTokensService } from "../../../core/tokens/api-tokens.service.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import {
  createTokenSchema,
  listTokensQuerySchema,
  tokenCreatedSchema,
  tokenIdSchema,
  tokensPageSchema,
  tokenViewSchema,
} from "./tokens.schema.js";

const isCreationCursor = isTimeIdCursor("t");

export function createTokensRouter({ tokens }: { tokens: ApiTokensService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/workspace/tokens", "workspaces");
  tokenListRoute(route, tokens);
  tokenChangeRoutes(route, tokens);
  return router;
}

/** The list, oldest first with cursor paging, never a token itself. */
function tokenListRoute(route: DeclareRoute, tokens: ApiTokensService) {
  route(
    {
      method: "get",
      path: "/",
      scope: "session",
      summary: "The workspace's API tokens, oldest first, revoked and expired ones too; never a token itself",
      query: listTokensQuerySchema,
      responses: {
        200: { description: "A page of tokens", schema: tokensPageSchema },
        400: "Bad query",
        403: "Admins and owners only, in a session",
      },
    },
    authorize("tokens:manage"),
    async (req, res) => {
      const { workspaceId, query } = req.input;
      const after = decodeCursor(query.cursor, isCreationCursor);
      const items = await tokens.list(workspaceId, {
        limit: query.limit + 1,
        after: after && { time: new Date(after.t), id: after.id },
      });
      const { page, next_cursor } = keysetPage(items, query.limit, (last) => ({ t: last.created_at, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );
}

/** Creation (the token answered once) and revocation, each recorded in the audit log. */
function tokenChangeRoutes(route: DeclareRoute, tokens: ApiTokensService) {
  route(
    {
      method: "post",
      path: "/",
      scope: "session",
      summary:
        "Create an API token with its scopes and an optional expiry; the answer holds the token (svc_pat_…) this once",
      body: createTokenSchema,
      responses: {
        201: { description: "The token, and `token` itself: shown once", schema: tokenCreatedSchema },
        400: "Bad name, scopes or expiry",
        403: "Admins and owners only, in a session",
        409: "The workspace holds its most tokens not revoked (too_many_tokens)",
      },
    },
    authorize("tokens:manage"),
    async (req, res) => {
      const { auth, body } = req.input;
      const created = await tokens.create(
        auth,
        {
          name: body.name,
          scopes: body.scopes,
          expires_at: body.expires_at === null ? null : new Date(body.expires_at),
        },
        auditSource(req),
      );
      res.status(201).json(created);
    },
  );

  route(
    {
      method: "delete",
      path: "/:id",
      scope: "session",
      summary: "Revoke an API token: its next request answers 401; it stays listed as revoked",
      params: z.object({ id: tokenIdSchema }),
      responses: {
        200: { description: "The revoked token", schema: tokenViewSchema },
        403: "Admins and owners only, in a session",
        404: "No such token",
      },
    },
    authorize("tokens:manage"),
    async (req, res) => {
      res.json(await tokens.revoke(req.input.workspaceId, req.input.params.id, auditContext(req)));
    },
  );
}
