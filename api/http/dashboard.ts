import { existsSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler, type Router } from "express";
import { precompressedVariant } from "./precompressed.js";
import { DASHBOARD_DIST } from "./dashboard-dist.js";

/**
 * Paths that are not pages: the API's own (unknown ones keep their JSON 404) and the build's assets
 * (a missing script must be a 404, not index.html).
 */
const NOT_PAGES = /^\/(api|docs|healthz|readyz|metrics|assets)(\/|$)/;

/**
 * The dashboard, same origin as the API: its built assets, and index.html for every other GET of a
 * page (client-side routes such as /flows/wf_…). Without a build, `/` says how to make one.
 */
export function createDashboard(distDir: string = DASHBOARD_DIST): Router {
  const router = express.Router();
  const indexFile = path.join(distDir, "index.html");

  // Vite's hashed file names never change content: cache them for good; index.html is always
  // revalidated. The build's brotli and gzip copies go to the browsers that take them.
  const assets = path.join(distDir, "assets");
  router.use("/assets", precompressedVariant(assets));
  router.use("/assets", express.static(assets, { immutable: true, maxAge: "1y", index: false }));
  router.use(express.static(distDir, { index: false, maxAge: 0 }));

  const page: RequestHandler = (req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || NOT_PAGES.test(req.path)) {
      next();
      return;
    }
    if (!existsSync(indexFile)) {
      if (req.path !== "/") {
        next();
        return;
      }
      res.status(503).json({
        error: "The dashboard is not built: run `npm run web:build` (npm start builds it), or see /docs for the API",
        code: "dashboard_not_built",
      });
      return;
    }
    if (!req.accepts("html")) {
      next();
      return;
    }
    res.set("Cache-Control", "no-cache").sendFile(indexFile);
  };
  router.use(page);
  return router;
}
