import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { workspaceMetricsSchema } from "./metrics.schema.js";
import type { MetricsService } from "../../../core/metrics/workspace-metrics.js";

/** GET /api/metrics: the dashboard's figures for the session's workspace. */
export function createMetricsRouter({ metrics }: { metrics: MetricsService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/metrics", "metrics");
  route(
    {
      method: "get",
      path: "/",
      scope: "read",
      summary:
        "Runs by status over the last hour, day and week with success rates, run duration p50/p95, the busiest flows and webhook delivery outcomes",
      responses: { 200: { description: "The workspace's figures", schema: workspaceMetricsSchema } },
    },
    async (req, res) => {
      res.json(await metrics.workspace(req.input.workspaceId));
    },
  );
  return router;
}
