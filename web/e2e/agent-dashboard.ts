// What the agent pages' browser tests share: a loopback model provider, a worker and the API
// serving the built dashboard on a task queue of their own, a user logged in through the API,
// Chromium on one page, and a screenshot of the page when a test fails.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, type TestContext } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig } from "../../test/helpers/context.js";
import { startFakeProvider, type FakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { startTestWorker } from "../../test/helpers/runs.js";

export const AGENT_E2E_TIMEOUT = 180_000;

export interface AgentDashboard {
  provider: FakeProvider;
  /** The API serving the dashboard, on loopback. */
  server: Server;
  base: string;
  page: Page;
  user: Awaited<ReturnType<typeof createTestUser>>;
  /** The user's session cookie, for API calls beside the browser. */
  cookie: string;
  /** Saves a screenshot of the page if the test fails. */
  screenshotOnFailure(context: TestContext): void;
}

/**
 * Starts it all before the file's tests and stops it after; `name` labels the task queue, the
 * logs, the user and the screenshots. The fields are set once beforeAll has run.
 */
export function useAgentDashboard(name: string): AgentDashboard {
  const dashboard = {} as AgentDashboard;
  let deps: AppDeps | undefined;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let browser: Browser | undefined;
  const say = (line: string) => process.stdout.write(`[${name} e2e] ${line}\n`);

  beforeAll(async () => {
    locateChromium();
    await ensureDashboard(say);
    dashboard.provider = await startFakeProvider();
    const providerConfig = {
      OPENAI_API_KEY: "sk-test-openai-key",
      OPENAI_BASE_URL: `${dashboard.provider.url}/v1`,
    };
    const taskQueue = `${name}-e2e-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: providerConfig });
    const config = testConfig({ ...providerConfig, TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, `${name}-e2e`));
    const app = createApp({ ...deps, dashboardDir: webDist });
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    dashboard.server = server;
    dashboard.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dashboard.user = await createTestUser(`${name}-browser`);
    dashboard.cookie = (await login(app, dashboard.user.email)).cookie;
    browser = await launchChromium();
    dashboard.page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    dashboard.page.setDefaultTimeout(30_000);
  }, AGENT_E2E_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    const { server } = dashboard;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await worker?.stop();
    if (deps) await closeDeps(deps);
    dashboard.provider?.close();
  }, AGENT_E2E_TIMEOUT);

  dashboard.screenshotOnFailure = (context) =>
    context.onTestFailed(async () => {
      const screenshots = path.join(webDir, ".screenshots");
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `${name}-${Date.now()}.png`);
      await dashboard.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      say(`screenshot of the failure: ${file}`);
    });
  return dashboard;
}
