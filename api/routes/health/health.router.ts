import { Router } from "express";
import type { AppDeps } from "../../deps.js";
import { checkReadiness } from "./health.service.js";

export function createHealthRouter(deps: Pick<AppDeps, "prisma" | "temporal">): Router {
  const router = Router();

  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  router.get("/readyz", async (_req, res) => {
    const checks = await checkReadiness(deps);
    const down = Object.entries(checks)
      .filter(([, result]) => !result.ok)
      .map(([name]) => name);
    const body = Object.fromEntries(
      Object.entries(checks).map(([name, result]) => [name, result.ok ? "ok" : `down: ${result.error}`]),
    );
    if (down.length === 0) res.json({ status: "ready", checks: body });
    else
      res.status(503).json({ error: `Not ready: ${down.join(" and ")} unavailable`, code: "not_ready", checks: body });
  });

  return router;
}
