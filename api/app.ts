import express, { type Express } from "express";
import helmet from "helmet";
import { createAuthenticate, requireSession } from "./http/authenticate.middleware.js";
import { createBearerAuthentication, unlessBearer } from "./http/bearer-token.js";
import { createApiTokensService } from "../core/tokens/api-tokens.service.js";
import { createTokensRouter } from "./routes/tokens/tokens.router.js";
import { createMcpRouter } from "./routes/mcp/mcp.router.js";
import { createMcpToolsService } from "../core/mcp/mcp-tools.service.js";
import { createSessionService } from "../core/sessions/sessions.service.js";
import type { AppDeps } from "./deps.js";
import { createCors } from "./http/cors.js";
import { createCsrfGuard } from "./http/csrf.js";
import { createDashboard } from "./http/dashboard.js";
import { createErrorHandler, notFoundHandler } from "./http/error-handler.js";
import { createRequestId } from "./http/request-id.js";
import { createApiDocs, type ApiDocs } from "./http/openapi.js";
import { jsonBody } from "./http/json-body.js";
import { rejectUnstorableText } from "./http/storable-text.js";
import { createOriginPolicy } from "./http/origins.js";
import { createDocsUi, createOpenApiRouter } from "./routes/openapi/openapi.router.js";
import { createRateLimiter } from "../core/rate-limiter.js";
import { createAuthRouter } from "./routes/auth/auth.router.js";
import { createAuthService } from "../core/sessions/auth.service.js";
import { createLoginThrottle } from "../core/sessions/login-throttle.js";
import { createHealthRouter } from "./routes/health/health.router.js";
import { checkReadiness } from "../core/health/readiness.js";
import { createHooksRouter } from "./routes/hooks/hooks.router.js";
import { createHooksService } from "../core/hooks/hooks.service.js";
import { createTestListens } from "../core/hooks/test-listens.js";
import { createInvitesService } from "../core/workspaces/invites.service.js";
import { createLinkDelivery } from "../core/workspaces/link-delivery.js";
import { createPasswordResetsService } from "../core/workspaces/password-resets.service.js";
import { createMembersService } from "../core/workspaces/members.service.js";
import { createWorkspacesService } from "../core/workspaces/workspaces.service.js";
import { createWorkspacesRouter } from "./routes/workspaces/workspaces.router.js";
import { createInvitesRouter } from "./routes/invites/invites.router.js";
import { createAgentCatalogRouter } from "./routes/agents/agent-catalog.router.js";
import { createAiKeysRouter } from "./routes/ai-keys/ai-keys.router.js";
import { createApiKeyStore } from "../core/credentials/ai-keys.js";
import { createCredentialsService } from "../core/credentials/credentials.service.js";
import { createCredentialsRouter } from "./routes/credentials/credentials.router.js";
import { createAgentRouter } from "./routes/agents/agent.router.js";
import { createAgentService } from "../core/agents/agent.service.js";
import { createFlowRunRouter, createFlowTestRunRouter, createFlowsRouter } from "./routes/flows/flows.router.js";
import { createHookTestListenRouter } from "./routes/flows/hook-test-listen.router.js";
import { createFlowQueueRouter } from "./routes/flows/flow-queue.router.js";
import { createFlowSchedules } from "../core/flows/flow-schedules.js";
import { createFlowsService } from "../core/flows/flows.service.js";
import { createNodesRouter } from "./routes/nodes/nodes.router.js";
import { createNodeTestService } from "../core/flows/node-tests.service.js";
import { createLogsRouter } from "./routes/logs/logs.router.js";
import { createLogsService } from "../core/runs/logs.service.js";
import { createDashboardRouter, createRunsRouter } from "./routes/runs/runs.router.js";
import { createRunsService } from "../core/runs/runs.service.js";
import { createRunWatcher } from "../core/runs/run-watch.js";
import { createRunEventsRouter } from "./routes/runs/run-events.router.js";
import { createMetricsRouter } from "./routes/metrics/metrics.router.js";
import { createMetricsService } from "../core/metrics/workspace-metrics.js";
import { createTemplatesRouter } from "./routes/templates/templates.router.js";
import { createWebhooksRouter } from "./routes/webhooks/webhooks.router.js";
import { createWebhooksService } from "../core/webhooks/webhooks.service.js";
import {
  createAgentRunWaitsRouter,
  createRunWaitsRouter,
  createWaitResumeRouter,
  createWaitsRouter,
} from "./routes/waits/waits.router.js";
import { createWaitsService } from "../core/waits/waits.service.js";
import { createTemporalCodecRouter } from "./routes/temporal-codec/temporal-codec.router.js";
import { createTemporalCodecService } from "../core/engine/temporal-codec.service.js";
import { createJsonSeal } from "../lib/crypto/sealed-json.js";
import { createUsageRouter } from "./routes/usage/usage.router.js";
import { createAuditRouter } from "./routes/audit/audit.router.js";
import { createAuditService } from "../core/audit/audit-log.js";
import {
  createBulkRerunRouter,
  createFlowReplayRouter,
  createOperationsRouter,
} from "./routes/operations/operations.router.js";
import { createOperationsService } from "../core/operations/operations.service.js";
import { createUsageService } from "../core/usage/usage.service.js";

/** Express "trust proxy": a hop count, or the addresses/CIDRs/names Express understands. */
function trustProxySetting(value: string | undefined): boolean | number | string {
  if (!value) return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** The Express application, built from injected clients; tests use it without a listening server. */
export function createApp(deps: AppDeps): Express {
  return buildApp(deps).app;
}

/** The application and the description of its routes (what /api/openapi.json serves). */
export function buildApp(deps: AppDeps): { app: Express; docs: ApiDocs } {
  const { config, logger } = deps;
  const services = createServices(deps);
  const app = express();
  app.disable("x-powered-by");
  // X-Forwarded-For decides the client address (login throttling) only behind trusted proxies.
  app.set("trust proxy", trustProxySetting(config.TRUSTED_PROXIES));
  app.use(createRequestId(logger, deps.metrics));
  app.use(helmet());
  const docs = createApiDocs();
  mountOwnAuthorityRoutes(app, deps, services, docs);
  app.use("/api", createApiRouter(deps, services, docs));
  // Last: the dashboard's assets, and its page for any other path a browser asks for.
  app.use(createDashboard(deps.dashboardDir));
  app.use(notFoundHandler);
  app.use(createErrorHandler(logger));
  return { app, docs };
}

type Services = ReturnType<typeof createServices>;

/** The services the routers share, built once from the injected clients. */
function createServices(deps: AppDeps) {
  const { config, prisma, clock, logger } = deps;
  const sessions = createSessionService({ prisma, clock, config });
  const rateLimiter = createRateLimiter({ prisma, clock });
  const loginThrottle = createLoginThrottle({ prisma, clock, config });
  const auth = createAuthService({ prisma, clock, logger, config, sessions, rateLimiter, loginThrottle });
  // Links by mail when a mail server is configured, else handed to whoever asked (MAIL_REQUIRED refuses that).
  const delivery = createLinkDelivery({ mailer: deps.mailer, config, logger });
  const invites = createInvitesService({ prisma, clock, config, delivery });
  const passwordResets = createPasswordResetsService({ prisma, clock, config, delivery });
  const members = createMembersService({ prisma, clock, invites, passwordResets });
  const schedules = createFlowSchedules({ temporal: deps.temporal, config, prepareNamespace: deps.prepareNamespace });
  const credentials = createCredentialsService({ prisma, clock, config });
  const runs = createRunsService({
    prisma,
    clock,
    temporal: deps.temporal,
    nodes: deps.nodes,
    logger,
    config,
    runEnds: deps.runEnds,
    credentials,
    eagerClient: deps.eagerClient,
    metrics: deps.metrics,
    prepareNamespace: deps.prepareNamespace,
  });
  const flows = createFlowsService({ prisma, clock, nodes: deps.nodes, schedules, credentials, runs });
  const agents = createAgentService({
    prisma,
    clock,
    temporal: deps.temporal,
    logger,
    config,
    runEnds: deps.runEnds,
    credentials,
    prepareNamespace: deps.prepareNamespace,
  });
  const webhooks = createWebhooksService({ prisma, clock, temporal: deps.temporal, config });
  const logs = createLogsService({ prisma, seal: createJsonSeal(config.SVC_ENCRYPTION_KEY) });
  const waits = createWaitsService({ prisma, clock, temporal: deps.temporal, logger, config });
  const tokens = createApiTokensService({ prisma, clock });
  const mcpTools = createMcpToolsService({ prisma, runs, config });
  const bearer = createBearerAuthentication({ tokens, rateLimiter, ratePerMinute: config.API_TOKEN_RATE_LIMIT });
  return {
    /** The browser origins the API answers (CORS, the CSRF guard, the MCP endpoint's Origin check). */
    origins: createOriginPolicy(config),
    sessions,
    tokens,
    bearer,
    mcpTools,
    rateLimiter,
    auth,
    invites,
    passwordResets,
    members,
    credentials,
    flows,
    runs,
    agents,
    webhooks,
    waits,
    logs,
  };
}

/**
 * Routes whose authority is their own (a hook's token, a resume URL's), or with CORS of their
 * own (the Temporal UI's codec): they come before the API's CORS, CSRF and session layers.
 */
function mountOwnAuthorityRoutes(app: Express, deps: AppDeps, services: Services, docs: ApiDocs): void {
  const { config, prisma, clock } = deps;
  const { runs, rateLimiter, waits, sessions, logs } = services;
  app.use(createHealthRouter({ readiness: () => checkReadiness(deps) }, docs));
  app.use(createDocsUi());
  app.use(
    "/api/hooks",
    createHooksRouter(
      {
        hooks: createHooksService({ prisma }),
        testListens: createTestListens({ prisma, seal: createJsonSeal(config.SVC_ENCRYPTION_KEY) }),
        clock,
        runs,
        rateLimiter,
        logs,
        logger: deps.logger,
        config,
        agentText: deps.agentText,
        stopping: deps.stopping,
      },
      docs,
    ),
  );
  app.use("/api/waits/resume", createWaitResumeRouter({ waits, config }, docs));
  // The Temporal UI's codec: CORS for the Temporal UI's origin only, the session required.
  app.use(
    "/api/temporal-codec",
    createTemporalCodecRouter(
      {
        codec: createTemporalCodecService({ prisma, codec: deps.dataConverter.payloadCodecs[0] }),
        authenticate: createAuthenticate(sessions),
        config,
      },
      docs,
    ),
  );
}

/**
 * /api: CORS, CSRF, JSON bodies and the session or API token, then the routes that need none and
 * those that need one. A bearer request (an API token) skips the CSRF guard and never reads the cookie.
 */
function createApiRouter(deps: AppDeps, services: Services, docs: ApiDocs): express.Router {
  const { config } = deps;
  const { auth, sessions, passwordResets, rateLimiter, invites, bearer } = services;
  const { origins } = services;
  const api = express.Router();
  api.use(createCors(origins));
  api.use(unlessBearer(createCsrfGuard(origins)));
  api.use(jsonBody({ limit: "1mb" }));
  api.use(rejectUnstorableText);
  api.use(createAuthenticate(sessions, bearer));
  api.use(
    "/auth",
    createAuthRouter(
      {
        auth,
        sessions,
        passwordResets,
        rateLimiter,
        resetRequestsPerIp: config.PASSWORD_RESET_MAX_REQUESTS_PER_IP,
      },
      docs,
    ),
  );
  api.use(createOpenApiRouter(docs));
  // An invite's link is its only authority: read and accepted without a session.
  api.use(
    "/invites",
    createInvitesRouter(
      { invites, auth, sessions, rateLimiter, requestsPerIp: config.INVITE_MAX_REQUESTS_PER_IP },
      docs,
    ),
  );
  // Everything below needs a valid session or API token (route() checks the token's scope).
  api.use(requireSession);
  mountSessionRoutes(api, deps, services, docs);
  return api;
}

/** The routes of a logged-in member, in the order the API documents them. */
function mountSessionRoutes(api: express.Router, deps: AppDeps, services: Services, docs: ApiDocs): void {
  const { config, prisma, clock, logger } = deps;
  const { flows, runs, waits, members, invites, agents, credentials, webhooks, logs, tokens, mcpTools, origins } =
    services;
  api.use(
    createWorkspacesRouter({ workspaces: createWorkspacesService({ prisma, clock, config }), members, invites }, docs),
  );
  api.use("/flows", createFlowsRouter({ flows }, docs));
  api.use("/workflows", createFlowRunRouter({ runs }, docs));
  api.use("/flows", createFlowTestRunRouter({ runs, rateLimiter: services.rateLimiter, config }, docs));
  api.use("/flows", createFlowQueueRouter({ runs }, docs));
  api.use(
    "/flows",
    createHookTestListenRouter(
      { testListens: createTestListens({ prisma, seal: createJsonSeal(config.SVC_ENCRYPTION_KEY) }) },
      docs,
    ),
  );
  const operations = createOperationsService({
    prisma,
    clock,
    temporal: deps.temporal,
    config,
    nodes: deps.nodes,
    credentials,
  });
  api.use("/flows", createFlowReplayRouter({ operations }, docs));
  api.use("/runs", createBulkRerunRouter({ operations, runs }, docs));
  api.use("/runs", createRunsRouter({ runs }, docs));
  api.use("/operations", createOperationsRouter({ operations }, docs));
  api.use("/runs", createRunWaitsRouter({ waits }, docs));
  const watcher = createRunWatcher({ prisma, runEnds: deps.runEnds, runs });
  api.use("/runs", createRunEventsRouter({ watcher, logger, stopping: deps.stopping }, docs));
  api.use("/waits", createWaitsRouter({ waits }, docs));
  api.use("/dashboard", createDashboardRouter({ runs }, docs));
  api.use("/logs", createLogsRouter({ logs }, docs));
  api.use("/metrics", createMetricsRouter({ metrics: createMetricsService({ prisma, clock }) }, docs));
  const usage = createUsageService({ prisma, clock, approveLiftedBudgetWaits: waits.approveLiftedBudgetWaits });
  api.use("/usage", createUsageRouter({ usage }, docs));
  api.use("/audit", createAuditRouter({ audit: createAuditService({ prisma }) }, docs));
  const nodeTests = createNodeTestService({
    temporal: deps.temporal,
    nodes: deps.nodes,
    logger,
    config,
    prepareNamespace: deps.prepareNamespace,
  });
  api.use("/nodes", createNodesRouter({ nodes: deps.nodes, nodeTests }, docs));
  api.use("/templates", createTemplatesRouter(docs));
  api.use("/agent", createAgentCatalogRouter(docs));
  api.use(
    "/agent",
    createAgentRouter({ agents, agentText: deps.agentText, runEnds: deps.runEnds, stopping: deps.stopping }, docs),
  );
  api.use("/agent", createAgentRunWaitsRouter({ waits }, docs));
  api.use("/mcp", createMcpRouter({ tools: mcpTools, logger, origins }, docs));
  const apiKeys = createApiKeyStore({ prisma, clock, config, credentials });
  api.use("/workspace/ai-keys", createAiKeysRouter({ apiKeys }, docs));
  api.use("/workspace/tokens", createTokensRouter({ tokens }, docs));
  api.use("/credentials", createCredentialsRouter({ credentials }, docs));
  api.use("/settings/webhooks", createWebhooksRouter({ webhooks }, docs));
}
