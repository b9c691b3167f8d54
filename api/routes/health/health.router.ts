import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import type { Readiness } from "../../../core/health/readiness.js";

export function createHealthRouter({ readiness }: { readiness: Readiness }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "", "health");

  route(
    { method: "get", path: "/healthz", summary: "The process is alive", public: true, responses: { 200: "Alive" } },
    (_req, res) => {
      res.json({ status: "ok" });
    },
  );

  route(
    {
      method: "get",
      path: "/readyz",
      summary: "The database and Temporal answer",
      public: true,
      responses: { 200: "Ready", 503: "A dependency does not answer; `checks` says which" },
    },
    async (_req, res) => {
      const checks = await readiness();
      const down = Object.entries(checks)
        .filter(([, result]) => !result.ok)
        .map(([name]) => name);
      const body = Object.fromEntries(
        Object.entries(checks).map(([name, result]) => [name, result.ok ? "ok" : `down: ${result.error}`]),
      );
      if (down.length === 0) res.json({ status: "ready", checks: body });
      else
        res
          .status(503)
          .json({ error: `Not ready: ${down.join(" and ")} unavailable`, code: "not_ready", checks: body });
    },
  );

  return router;
}
