import { documentedRouter, type ApiDocs } from "../../http/openapi.js";

export function createOpenApiRouter(docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api", "meta");
  route(
    {
      method: "get",
      path: "/openapi.json",
      summary: "This OpenAPI 3.1 document",
      public: true,
      responses: { 200: "The document" },
    },
    (_req, res) => {
      res.json(
        docs.document({
          title: "svc workflow automation API",
          version: "0.1.0",
          description: "Flows, runs, agents and webhooks on Temporal. Errors are { error, code }.",
        }),
      );
    },
  );
  return router;
}
