// Mounted at /api/flows: a hook trigger's "listen for a test event" (core/hooks/test-listens.ts).
// POST /{id}/hook/test-listen opens a five-minute, one-use test address apart from the production
// hook (which keeps serving the published version); GET …/{listenId} is what the editor polls until
// the address captured a request, the draft's test input.
import { z } from "zod";
import type { TestListens } from "../../../core/hooks/test-listens.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { flowIdSchema } from "./flows.schema.js";

const flowParams = z.object({ id: flowIdSchema });
const listenParams = z.object({ id: flowIdSchema, listenId: z.string().max(100) });

export const testListenOpenedSchema = z.object({
  id: z.string(),
  test_path: z.string().meta({ description: "The test address, /api/hooks/test/{token}: shown once" }),
  expires_at: z.string(),
});

export const testListenSchema = z.object({
  id: z.string(),
  status: z.enum(["listening", "captured", "expired"]),
  expires_at: z.string(),
  captured_at: z.string().nullable(),
  captured: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: "The captured request as a run's input: {method, headers, query, body}" }),
});

export function createHookTestListenRouter(deps: { testListens: TestListens }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/flows", "flows");
  route(
    {
      method: "post",
      path: "/:id/hook/test-listen",
      scope: "write",
      summary:
        "Listen for a test event: open a one-use test address of the flow's hook trigger for five minutes (closing the flow's earlier one); its next request becomes test data and starts no run",
      params: flowParams,
      responses: {
        201: { description: "Listening", schema: testListenOpenedSchema },
        403: "Role too low",
        404: "No such flow",
        409: "The flow's saved definition has no HTTP trigger (no_hook_trigger)",
      },
    },
    authorize("flows:write"),
    async (req, res) => {
      const { params, auth } = req.input;
      const by = auth.kind === "member" ? auth.user.id : null;
      const opened = await deps.testListens.open(auth.workspace.workspaceId, params.id, by);
      res.status(201).json({
        id: opened.id,
        test_path: `/api/hooks/test/${opened.token}`,
        expires_at: opened.expiresAt.toISOString(),
      });
    },
  );
  route(
    {
      method: "get",
      path: "/:id/hook/test-listen/:listenId",
      scope: "read",
      summary: "A test address's state (listening, captured, expired) and the request it captured",
      params: listenParams,
      responses: {
        200: { description: "The listen", schema: testListenSchema },
        404: "No such flow or listen in this workspace",
      },
    },
    async (req, res) => {
      const { params, workspaceId } = req.input;
      res.json(await deps.testListens.view(workspaceId, params.id, params.listenId));
    },
  );
  return router;
}
