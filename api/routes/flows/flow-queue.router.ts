// Mounted at /api/flows: GET /{id}/queue, the flow's runs waiting at its concurrency or throttle
// gates per key, for the editor's flow-control box (core/runs/reads/flow-queue.ts).
import { z } from "zod";
import type { RunsService } from "../../../core/runs/runs.service.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { flowIdSchema } from "./flows.schema.js";

const flowParams = z.object({ id: flowIdSchema });

export const flowQueueSchema = z
  .object({
    queued: z.int().meta({ description: "Runs waiting at the flow's gates now, every key" }),
    oldest_wait_seconds: z.number().meta({ description: "Since the oldest waiting run started; 0 when none waits" }),
    keys: z
      .array(
        z.object({
          key: z.string().nullable().meta({
            description: "The key (its sha256: hash when long; empty without a key); null from an older gate",
          }),
          queued: z.int(),
          running: z.int().meta({ description: "Runs holding a slot of this key" }),
          limit: z.int(),
          oldest_wait_seconds: z.number(),
        }),
      )
      .meta({ description: "Per key (one gate each) with a run waiting or running, most waiting first; 20 at most" }),
  })
  .meta({ id: "FlowQueue" });

export function createFlowQueueRouter({ runs }: { runs: Pick<RunsService, "queue"> }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/flows", "flows");
  route(
    {
      method: "get",
      path: "/:id/queue",
      scope: "read",
      summary:
        "The flow's queue: runs waiting at its concurrency or throttle gates and running now, per key, with the longest wait",
      params: flowParams,
      responses: {
        200: { description: "The queue now", schema: flowQueueSchema },
        404: "No such flow",
      },
    },
    async (req, res) => {
      res.json(await runs.queue(req.input.workspaceId, req.input.params.id));
    },
  );
  return router;
}
