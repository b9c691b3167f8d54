import express from "express";
import swaggerUi from "swagger-ui-express";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";

/**
 * /docs: interactive reference of /api/openapi.json (Swagger UI, its assets served from this
 * server: no CDN, so it works offline and under the default Content-Security-Policy). "Try it
 * out" calls go to this origin with the session cookie of a logged-in browser.
 */
export function createDocsUi() {
  const router = express.Router();
  router.use(
    "/docs",
    swaggerUi.serve,
    swaggerUi.setup(undefined, {
      customSiteTitle: "svc workflow automation API",
      swaggerOptions: { url: "/api/openapi.json", withCredentials: true },
    }),
  );
  return router;
}

/** The document of the declared routes, as /api/openapi.json serves it. */
export function apiDocument(docs: ApiDocs) {
  return docs.document({
    title: "svc workflow automation API",
    version: "0.1.0",
    description: "Flows, runs, agents and webhooks on Temporal. Errors are { error, code }.",
  });
}

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
      res.json(apiDocument(docs));
    },
  );
  return router;
}
