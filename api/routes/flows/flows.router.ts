import { Router } from "express";
import { requireAuth } from "../../auth/authenticate.middleware.js";
import { authorize } from "../../auth/permissions.js";
import {
  createFlowSchema,
  flowIdSchema,
  listFlowsQuerySchema,
  updateFlowSchema,
  versionNumberSchema,
} from "./flows.schema.js";
import type { FlowsService } from "./flows.service.js";

/** Mounted at /api/flows and at /api/workflows (the run endpoint's path names flows "workflows"). */
export function createFlowsRouter({ flows }: { flows: FlowsService }): Router {
  const router = Router();
  const workspaceOf = (req: Parameters<typeof requireAuth>[0]) => requireAuth(req).workspace.workspaceId;

  router.get("/", async (req, res) => {
    res.json(await flows.list(workspaceOf(req), listFlowsQuerySchema.parse(req.query)));
  });

  router.post("/", authorize("flows:write"), async (req, res) => {
    const flow = await flows.create(requireAuth(req), createFlowSchema.parse(req.body));
    res.status(201).location(`/api/flows/${flow.id}`).json(flow);
  });

  router.get("/:id", async (req, res) => {
    res.json(await flows.get(workspaceOf(req), flowIdSchema.parse(req.params.id)));
  });

  router.put("/:id", authorize("flows:write"), async (req, res) => {
    res.json(await flows.update(requireAuth(req), flowIdSchema.parse(req.params.id), updateFlowSchema.parse(req.body)));
  });

  router.delete("/:id", authorize("flows:write"), async (req, res) => {
    await flows.remove(workspaceOf(req), flowIdSchema.parse(req.params.id));
    res.json({ ok: true });
  });

  router.get("/:id/versions", async (req, res) => {
    res.json(await flows.versions(workspaceOf(req), flowIdSchema.parse(req.params.id)));
  });

  router.get("/:id/versions/:version", async (req, res) => {
    const version = versionNumberSchema.parse(req.params.version);
    res.json(await flows.version(workspaceOf(req), flowIdSchema.parse(req.params.id), version));
  });

  return router;
}
