// The real service for a browser test file: the Express app on loopback serving web/dist, a real
// worker on the shared Temporal dev server, a user, a loopback third party and Debian's Chromium.
// (dashboard.e2e.test.ts sets up its own, with a model provider and a second origin besides.)
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { RequestListener } from "node:http";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { startTestWorker } from "../../test/helpers/runs.js";

export const screenshotDir = path.join(webDir, ".screenshots");

export interface DashboardService {
  /** The API's origin, serving the dashboard. */
  base: string;
  /** A loopback third party answering with `thirdParty`. */
  target: LoopbackServer;
  browser: Browser;
  user: Awaited<ReturnType<typeof createTestUser>>;
  /** A browser context of its own at `width`×`height`, logged in as `user`. */
  loggedIn(
    viewport: { width: number; height: number },
    /** More of the context's options (a time zone, a locale). */
    options?: BrowserContextOptions,
  ): Promise<{ context: BrowserContext; page: Page }>;
  /** Calls the API as `user` (through a logged-in context's cookie); throws on an error answer. */
  api<T>(
    context: BrowserContext,
    method: "GET" | "POST" | "PUT" | "DELETE",
    apiPath: string,
    body?: unknown,
  ): Promise<T>;
  /** Waits (at most 30 s) for a run to end; returns its status. */
  runEnded(context: BrowserContext, runId: string): Promise<string>;
  /** Saves a screenshot of `page` under web/.screenshots; returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  stop(): Promise<void>;
}

const log = (line: string) => process.stdout.write(`[dashboard e2e] ${line}\n`);

/** `settings`: more of the API's configuration (a mail server's, say). */
export async function startDashboardService(
  thirdParty: RequestListener,
  settings: Record<string, string> = {},
): Promise<DashboardService> {
  locateChromium(); // fails at once, naming what to install, when there is no Chromium
  await ensureDashboard(log);
  const target = await startLoopbackServer(thirdParty);
  const egress = { EGRESS_ALLOWLIST: "127.0.0.1" };
  const taskQueue = `dashboard-${randomUUID()}`;
  const worker = await startTestWorker({ taskQueue, config: egress });
  const config = testConfig({ ...egress, ...settings, TEMPORAL_TASK_QUEUE: taskQueue });
  const deps: AppDeps = createDeps(config, createLogger(config, "dashboard-e2e"));
  const server: Server = createApp({ ...deps, dashboardDir: webDist }).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const user = await createTestUser("browser");
  const browser = await launchChromium();

  const api: DashboardService["api"] = async (context, method, apiPath, body) => {
    const response = await context.request.fetch(`${base}${apiPath}`, {
      method,
      ...(body === undefined ? {} : { data: body }),
    });
    const text = await response.text();
    if (!response.ok()) throw new Error(`${method} ${apiPath} answered ${response.status()}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as never;
  };

  return {
    base,
    target,
    browser,
    user,
    api,
    async loggedIn(viewport, options = {}) {
      const context = await browser.newContext({ ...options, viewport });
      await api(context, "POST", "/api/auth/login", { email: user.email, password: user.password });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      return { context, page };
    },
    async runEnded(context, runId) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { run } = await api<{ run: { status: string } }>(context, "GET", `/api/runs/${runId}`);
        // A run waiting at its flow's gate reads queued: not ended either.
        if (run.status !== "running" && run.status !== "queued") return run.status;
        if (Date.now() > deadline) throw new Error(`run ${runId} still running after 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async screenshot(page, name) {
      mkdirSync(screenshotDir, { recursive: true });
      const file = path.join(screenshotDir, `${name.replace(/[^a-z0-9]+/gi, "-")}-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      log(`screenshot: ${file}`);
      return file;
    },
    async stop() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await worker.stop();
      target.close();
      await closeDeps(deps);
    },
  };
}

/**
 * A test file's service and one logged-in page on it (1280×900 unless told): started before the
 * file's tests, stopped after them; a failing test leaves a screenshot of the page.
 */
export function useDashboardPage(
  options: { thirdParty?: RequestListener; viewport?: { width: number; height: number }; timeout?: number } = {},
) {
  const timeout = options.timeout ?? 180_000;
  const session = {} as { service: DashboardService; context: BrowserContext; page: Page };
  beforeAll(async () => {
    session.service = await startDashboardService(options.thirdParty ?? ((_req, res) => res.writeHead(204).end()));
    const opened = await session.service.loggedIn(options.viewport ?? { width: 1280, height: 900 });
    session.context = opened.context;
    session.page = opened.page;
  }, timeout);
  afterAll(async () => {
    await session.context?.close();
    await session.service?.stop();
  }, timeout);
  beforeEach((test) => {
    test.onTestFailed(async () => {
      await session.service.screenshot(session.page, test.task.name);
    });
  });
  return session;
}

/** Opens `url` and waits for `ready` to show and for the page's requests to settle. */
export async function openWhenReady(page: Page, url: string, ready: string) {
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  await page.waitForLoadState("networkidle");
}

/** The editor's "Test run" results once its run ended as `status`, and that run's id. */
export async function shownTestRun(page: Page, status = "success") {
  const results = page.getByRole("region", { name: "Test run" });
  await results.locator(`h3 .badge.status-${status}`).waitFor({ timeout: 30_000 });
  return { results, runId: (await results.getAttribute("data-run-id"))! };
}
