import express, { type Express } from "express";
import helmet from "helmet";
import type { AppDeps } from "./deps.js";
import { createErrorHandler, notFoundHandler } from "./http/error-handler.js";
import { createHealthRouter } from "./routes/health/health.router.js";

/** The Express application, built from injected clients; tests use it without a listening server. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.use(helmet());
  app.use(express.json({ limit: "1mb" }));

  app.use(createHealthRouter(deps));

  app.use(notFoundHandler);
  app.use(createErrorHandler(deps.logger));
  return app;
}
