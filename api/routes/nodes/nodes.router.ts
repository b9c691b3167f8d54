import { z } from "zod";
import { authorize } from "../../http/authenticate.middleware.js";
import type { NodeTestService } from "../../../core/flows/node-tests.service.js";
import type { NodeRegistry } from "../../../core/nodes/registry.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { catalogEntrySchema, catalogQuerySchema, nodeTestResultSchema, nodeTestSchema } from "./nodes.schema.js";

/** The node catalog, generated from the node declarations (built-in and custom), and node tests. */
export function createNodesRouter(
  { nodes, nodeTests }: { nodes: NodeRegistry; nodeTests: NodeTestService },
  docs: ApiDocs,
) {
  const { router, route } = documentedRouter(docs, "/api/nodes", "nodes");
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "The node catalog",
      query: catalogQuerySchema,
      responses: {
        200: { description: "Catalog entries", schema: z.object({ items: z.array(catalogEntrySchema) }) },
        400: "Unknown category",
      },
    },
    (req, res) => {
      res.json({ items: nodes.catalog(req.input.query.category) });
    },
  );
  route(
    {
      method: "post",
      path: "/test",
      scope: "write",
      summary: "Runs one node once on a sample input, on a worker, and answers its output or error and its log",
      body: nodeTestSchema,
      responses: {
        200: { description: "The test ran (its status says how it went)", schema: nodeTestResultSchema },
        400: "Invalid body, an unknown node type (unknown_node_type), or one that waits or starts runs (node_not_testable)",
        403: "Role too low (editor and up)",
        503: "Temporal or the workers did not answer (temporal_unavailable, node_test_timeout)",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      res.json(await nodeTests.test(req.input.workspaceId, req.input.body));
    },
  );
  return router;
}
