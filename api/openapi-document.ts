// The OpenAPI document built in-process, without a database or Temporal: the app is assembled
// from lazy clients that never connect, and its route declarations are read. `npm run web:types`
// generates the dashboard's types from it (scripts/web-types.ts).
import { buildApp } from "./app.js";
import { closeDeps, createDeps } from "./deps.js";
import { apiDocument } from "./routes/openapi/openapi.router.js";
import { parseConfig } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";

/** Settings under which every route is mounted; nothing is connected to. */
const OFFLINE_ENV = {
  NODE_ENV: "test",
  LOG_LEVEL: "silent",
  DATABASE_URL: "postgresql://openapi@127.0.0.1:1/openapi",
  TEMPORAL_ADDRESS: "127.0.0.1:1",
};

export async function buildOpenApiDocument(): Promise<ReturnType<typeof apiDocument>> {
  const config = parseConfig(OFFLINE_ENV);
  const deps = createDeps(config, createLogger(config, "openapi"));
  try {
    return apiDocument(buildApp(deps).docs);
  } finally {
    await closeDeps(deps);
  }
}
