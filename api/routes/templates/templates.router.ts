import { z } from "zod";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { FLOW_TEMPLATES } from "../../../core/flows/flow-templates.js";
import { flowTemplateSchema } from "./templates.schema.js";

export function createTemplatesRouter(docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/templates", "flows");
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary: "Starter flows",
      responses: { 200: { description: "The templates", schema: z.object({ items: z.array(flowTemplateSchema) }) } },
    },
    (_req, res) => {
      res.json({ items: FLOW_TEMPLATES });
    },
  );
  return router;
}
