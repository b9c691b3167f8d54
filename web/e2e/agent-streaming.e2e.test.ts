// An agent's text as it is written, in a real browser (Debian's Chromium through playwright-core)
// against the real service and a loopback model provider that streams: the agent run's page shows
// the first words while the model call is still open, then the recorded answer.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig, testPrisma } from "../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider, type FakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { startTestWorker } from "../../test/helpers/runs.js";

const screenshots = path.join(webDir, ".screenshots");
const TIMEOUT = 180_000;
/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };

describe("streamed agent text in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
  let provider: FakeProvider;
  let deps: AppDeps;
  let server: Server;
  let base: string;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let browser: Browser;
  let page: Page;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;

  beforeAll(async () => {
    locateChromium();
    await ensureDashboard((line) => process.stdout.write(`[agent streaming e2e] ${line}\n`));
    provider = await startFakeProvider();
    const providerConfig = { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` };
    const taskQueue = `agent-streaming-e2e-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: providerConfig });
    const config = testConfig({ ...providerConfig, TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "agent-streaming-e2e"));
    const app = createApp({ ...deps, dashboardDir: webDist });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createTestUser("streaming-browser");
    cookie = (await login(app, user.email)).cookie;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(30_000);
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await worker?.stop();
    if (deps) await closeDeps(deps);
    provider?.close();
  }, TIMEOUT);

  it("shows the model's first words on the agent run's page before its step is recorded", async (context) => {
    context.onTestFailed(async () => {
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `agent-streaming-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[agent streaming e2e] screenshot of the failure: ${file}\n`);
    });
    const text = "The parcel leaves Paris tonight and reaches the Lyon depot by nine tomorrow morning.";
    let release = () => {};
    const midway = new Promise<void>((resolve) => (release = resolve));
    provider.script("openai", { ...openAiAnswer({ text }), midway });
    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    const started = await request(server).post("/api/agent/run").set("Cookie", cookie).send({
      agent: "writer",
      instructions: "Where is the parcel?",
      provider: "openai",
      model: "gpt-test",
      tools: [],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    await page.goto(`${base}/agents/runs/${id}`);

    const live = page.locator("[data-live-text]");
    await expect.poll(() => live.textContent().catch(() => ""), SHOWN).toMatch(/^The parcel/);
    const early = (await live.textContent())!;
    expect(early.length).toBeLessThan(text.length);
    expect(await testPrisma().agentStep.count({ where: { agentRunId: id } })).toBe(0);

    release();
    await expect.poll(() => page.locator(`[data-agent-run="${id}"] h3 .badge`).textContent(), SHOWN).toBe("success");
    expect(await page.locator(".agent-answer").first().textContent()).toBe(text);
    expect(await live.count()).toBe(0);
  });
});
