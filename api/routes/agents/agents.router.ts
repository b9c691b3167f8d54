import { Router } from "express";
import { AGENT_PRESETS, AGENT_TOOLS } from "../../../worker/agents/presets.js";

export function createAgentsRouter(): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    res.json({ items: AGENT_PRESETS, tools: AGENT_TOOLS });
  });
  return router;
}
