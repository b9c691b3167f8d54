import { z } from "zod";
import { NODE_CATEGORIES } from "../../../core/nodes/define-node.js";
import type { NodeRegistry } from "../../../core/nodes/registry.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";

const catalogQuerySchema = z.object({ category: z.enum(NODE_CATEGORIES).optional() });

/** The node catalog, generated from the node declarations (built-in and custom). */
export function createNodesRouter({ nodes }: { nodes: NodeRegistry }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/nodes", "nodes");
  route(
    {
      method: "get",
      path: "/",
      summary: "The node catalog",
      query: catalogQuerySchema,
      responses: { 200: "Catalog entries", 400: "Unknown category" },
    },
    (req, res) => {
      res.json({ items: nodes.catalog(req.input.query.category) });
    },
  );
  return router;
}
