// /api/workspace/ai-keys: the workspace's own language-model provider keys, kept as its default
// ai_provider credentials (sealed with SVC_ENCRYPTION_KEY) and never returned: reads show the
// source and last four.
import { z } from "zod";
import { AI_PROVIDERS } from "../../../core/ai/providers.js";
import type { ApiKeyStore } from "../../../core/credentials/ai-keys.js";
import { credentialDataSchemas } from "../../../core/contracts/credential-types.js";
import { CredentialsDisabled } from "../../../core/errors.js";
import { auditContext } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { notFound } from "../../http/errors.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { actorId } from "../../../core/workspaces/actor.js";

const providerParams = z.object({ provider: z.enum(AI_PROVIDERS) });
const setKeySchema = credentialDataSchemas.ai_provider.pick({ api_key: true });

/** What the workspace may see of a provider's key: whose it is and its last four characters, never the key. */
const aiKeyViewSchema = z
  .object({
    provider: z.enum(AI_PROVIDERS),
    source: z
      .enum(["workspace", "server"])
      .nullable()
      .meta({ description: "The workspace's own key, the server's, or none" }),
    last4: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "AiKey" });

export function createAiKeysRouter({ apiKeys }: { apiKeys: ApiKeyStore }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/workspace/ai-keys", "workspaces");

  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary:
        "Which provider keys the workspace's AI nodes and agents use (the workspace's own or the server's); never the keys",
      responses: {
        200: {
          description: "The providers' keys, and whether the workspace can store its own (SVC_ENCRYPTION_KEY)",
          schema: z.object({ items: z.array(aiKeyViewSchema), can_store: z.boolean() }),
        },
      },
    },
    async (req, res) => {
      res.json({ items: await apiKeys.describe(req.input.workspaceId), can_store: apiKeys.canStore });
    },
  );

  route(
    {
      method: "put",
      path: "/:provider",
      scope: "admin",
      summary:
        "Store the workspace's key for a provider, as its default ai_provider credential (sealed at rest; never returned)",
      params: providerParams,
      body: setKeySchema,
      absentBodyIsEmpty: true,
      responses: {
        200: { description: "The stored key", schema: aiKeyViewSchema },
        400: "Invalid key or provider",
        403: "Admins only",
        409: "The server has no SVC_ENCRYPTION_KEY to seal keys with",
      },
    },
    authorize("settings:manage"),
    async (req, res) => {
      const { params, body, auth, workspaceId } = req.input;
      if (!apiKeys.canStore) throw new CredentialsDisabled("ai_keys_disabled");
      const stored = await apiKeys.set(workspaceId, params.provider, body.api_key, actorId(auth), auditContext(req));
      res.json({
        provider: params.provider,
        source: "workspace",
        last4: stored.last4,
        updated_at: stored.updatedAt.toISOString(),
      });
    },
  );

  route(
    {
      method: "delete",
      path: "/:provider",
      scope: "admin",
      summary: "Remove the workspace's key for a provider (the server's key, if any, applies again)",
      params: providerParams,
      responses: { 200: "Removed", 403: "Admins only", 404: "No key stored for this provider" },
    },
    authorize("settings:manage"),
    async (req, res) => {
      const { provider } = req.input.params;
      if (!(await apiKeys.remove(req.input.workspaceId, provider, auditContext(req)))) {
        throw notFound(`The workspace has no ${provider} key`);
      }
      res.json({ ok: true });
    },
  );

  return router;
}
