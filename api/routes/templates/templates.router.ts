import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { FLOW_TEMPLATES } from "../../../core/flows/flow-templates.js";

export function createTemplatesRouter(docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/templates", "flows");
  route({ method: "get", path: "/", summary: "Starter flows", responses: { 200: "The templates" } }, (_req, res) => {
    res.json({ items: FLOW_TEMPLATES });
  });
  return router;
}
