import { AGENT_PRESETS, AGENT_TOOLS } from "../../../core/contracts/agent-catalog.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { agentCatalogSchema } from "./agent.schema.js";

/** GET /api/agent/catalog, beside the interface's /api/agent/run, logs and memory (one prefix for agents). */
export function createAgentCatalogRouter(docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/agent", "agents");
  route(
    {
      method: "get",
      path: "/catalog",
      scope: "read",
      summary: "The agent catalog: presets and tools",
      responses: { 200: { description: "The catalog", schema: agentCatalogSchema } },
    },
    (_req, res) => {
      res.json({ items: AGENT_PRESETS, tools: AGENT_TOOLS });
    },
  );
  return router;
}
