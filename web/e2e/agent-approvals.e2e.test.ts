// Agent tool approvals in a real browser (Debian's Chromium through playwright-core) against the
// real service and a loopback model provider: the inbox lists the call with its arguments, Open
// leads to the agent run's page, Approve lets the run go on. A failing test saves a screenshot.
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

describe("agent tool approvals in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
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
    await ensureDashboard((line) => process.stdout.write(`[agent approvals e2e] ${line}\n`));
    provider = await startFakeProvider();
    const providerConfig = { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` };
    const taskQueue = `agent-approvals-e2e-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: providerConfig });
    const config = testConfig({ ...providerConfig, TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "agent-approvals-e2e"));
    const app = createApp({ ...deps, dashboardDir: webDist });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createTestUser("approvals-browser");
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

  it("lists the call with its arguments in the inbox; Approve on the agent run's page runs the tool", async (context) => {
    context.onTestFailed(async () => {
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `agent-approvals-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[agent approvals e2e] screenshot of the failure: ${file}\n`);
    });
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "parcel", value: "to Lyon" }) }],
      }),
      openAiAnswer({ text: "Parcel noted." }),
    );
    const started = await request(server)
      .post("/api/agent/run")
      .set("Cookie", cookie)
      .send({
        agent: "courier",
        instructions: "Note the parcel",
        provider: "openai",
        model: "gpt-test",
        tools: ["memory.write"],
        approval_tools: ["memory.write"],
      });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    await expect.poll(() => testPrisma().wait.count({ where: { agentRunId: id, status: "pending" } }), SHOWN).toBe(1);

    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.locator(".topbar nav").getByRole("link", { name: /Waits/ }).click();
    await page.getByRole("heading", { name: "Waiting for you" }).waitFor();
    const row = page.locator("tr[data-wait]");
    await expect.poll(() => row.textContent(), SHOWN).toContain("tool memory.write");
    expect(await row.textContent()).toContain("agent courier");
    expect(await row.textContent()).toContain('"to Lyon"');
    await row.getByRole("link", { name: "Open" }).click();
    await page.waitForURL(`**/agents/runs/${id}`);

    const card = page.locator(".card[data-wait]");
    expect(await card.textContent()).toContain("tool memory.write");
    await card.getByLabel("Comment").fill("go ahead");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => card.textContent(), SHOWN).toMatch(/approved by approvals-browser name .*: “go ahead”/);
    await expect.poll(() => page.locator(`[data-agent-run="${id}"] h3 .badge`).textContent(), SHOWN).toBe("success");
    expect(await page.locator('tr[data-step-kind="approval"]').count()).toBe(1);
    const memory = await request(server).get("/api/agent/memory?agent=courier&key=parcel").set("Cookie", cookie);
    expect(memory.body).toMatchObject({ value: "to Lyon", agent_run_id: id });
  });
});
