import { Router } from "express";
import { z } from "zod";
import { NODE_CATEGORIES } from "../../../worker/nodes/define-node.js";
import type { NodeRegistry } from "../../../worker/nodes/registry.js";

const catalogQuerySchema = z.object({ category: z.enum(NODE_CATEGORIES).optional() });

/** The node catalog, generated from the node declarations (built-in and custom). */
export function createNodesRouter({ nodes }: { nodes: NodeRegistry }): Router {
  const router = Router();
  router.get("/", (req, res) => {
    const { category } = catalogQuerySchema.parse(req.query);
    res.json({ items: nodes.catalog(category) });
  });
  return router;
}
