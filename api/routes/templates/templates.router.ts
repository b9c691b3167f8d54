import { Router } from "express";
import { FLOW_TEMPLATES } from "./templates.js";

export function createTemplatesRouter(): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    res.json({ items: FLOW_TEMPLATES });
  });
  return router;
}
