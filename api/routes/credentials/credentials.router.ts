// /api/credentials: the workspace's secrets that nodes use by id. Values are written once and
// never returned: reads show the type, the fields that are not secret and a hint.
import { z } from "zod";
import type { CredentialsService } from "../../../core/credentials/credentials.service.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import { actorId } from "../../../core/workspaces/actor.js";
import { auditContext } from "../../http/audit-context.js";
import {
  createCredentialSchema,
  credentialIdSchema,
  credentialViewSchema,
  deleteCredentialQuerySchema,
  listCredentialsQuerySchema,
  updateCredentialSchema,
} from "./credentials.schema.js";

const credentialParams = z.object({ id: credentialIdSchema });
const isCreationCursor = isTimeIdCursor("t");

export function createCredentialsRouter({ credentials }: { credentials: CredentialsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/credentials", "credentials");
  credentialCollectionRoutes(route, credentials);
  credentialRoutes(route, credentials);
  return router;
}

/** GET and POST /: the workspace's credentials, and a new one. */
function credentialCollectionRoutes(route: DeclareRoute, credentials: CredentialsService) {
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "The workspace's credentials, oldest first, without their secrets (every member)",
      query: listCredentialsQuerySchema,
      responses: {
        200: {
          description: "A page of credentials",
          schema: z.object({ items: z.array(credentialViewSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
      },
    },
    async (req, res) => {
      const { type, limit, cursor } = req.input.query;
      const after = decodeCursor(cursor, isCreationCursor);
      const rows = await credentials.list(req.input.workspaceId, {
        types: type,
        limit: limit + 1,
        after: after && { createdAt: new Date(after.t), id: after.id },
      });
      const { page, next_cursor } = keysetPage(rows, limit, (last) => ({ t: last.created_at, id: last.id }));
      res.json({ items: page, next_cursor });
    },
  );

  route(
    {
      method: "post",
      path: "/",
      scope: "admin",
      summary: "Store a credential; its secret values are sealed and never returned",
      body: createCredentialSchema,
      responses: {
        201: { description: "Created", schema: credentialViewSchema },
        400: "Bad values for the type",
        403: "Admins and owners only",
        409: "The name is taken (credential_name_taken), or the server has no SVC_ENCRYPTION_KEY (credentials_disabled)",
      },
    },
    authorize("credentials:manage"),
    async (req, res) => {
      const { workspaceId, auth, body } = req.input;
      res.status(201).json(await credentials.create(workspaceId, actorId(auth), body, { audit: auditContext(req) }));
    },
  );
}

/** /{id}: one credential (read, the flows that use it, changed, deleted). */
function credentialRoutes(route: DeclareRoute, credentials: CredentialsService) {
  route(
    {
      method: "get",
      path: "/:id",
      scope: "read",
      summary: "One credential, without its secret (every member)",
      params: credentialParams,
      responses: { 200: { description: "The credential", schema: credentialViewSchema }, 404: "No such credential" },
    },
    async (req, res) => {
      res.json(await credentials.get(req.input.workspaceId, req.input.params.id));
    },
  );

  route(
    {
      method: "get",
      path: "/:id/flows",
      scope: "read",
      summary: "The flows whose current version uses the credential",
      params: credentialParams,
      responses: { 200: "{items: [{id, name}]}", 404: "No such credential" },
    },
    async (req, res) => {
      const { workspaceId, params } = req.input;
      await credentials.get(workspaceId, params.id);
      res.json({ items: await credentials.flowsUsing(workspaceId, params.id) });
    },
  );

  route(
    {
      method: "patch",
      path: "/:id",
      scope: "admin",
      summary:
        "Rename a credential, or replace its values (rotate); flows using it get the new values at their next call",
      params: credentialParams,
      body: updateCredentialSchema,
      responses: {
        200: { description: "Updated", schema: credentialViewSchema },
        400: "Bad values for the credential's type",
        403: "Admins and owners only",
        404: "No such credential",
        409: "The name is taken, or the server has no SVC_ENCRYPTION_KEY",
      },
    },
    authorize("credentials:manage"),
    async (req, res) => {
      const { workspaceId, auth, params, body } = req.input;
      res.json(await credentials.update(workspaceId, actorId(auth), params.id, body, auditContext(req)));
    },
  );

  route(
    {
      method: "delete",
      path: "/:id",
      scope: "admin",
      summary: "Delete a credential; while flows use it, only with ?force=true (their runs then fail at that node)",
      params: credentialParams,
      query: deleteCredentialQuerySchema,
      responses: {
        200: "{ok: true}",
        403: "Admins and owners only",
        404: "No such credential",
        409: "Flows use it: {error, code: credential_in_use, flows: [{id, name}]}",
      },
    },
    authorize("credentials:manage"),
    async (req, res) => {
      const { workspaceId, params, query } = req.input;
      await credentials.remove(workspaceId, params.id, { force: query.force, audit: auditContext(req) });
      res.json({ ok: true });
    },
  );
}
