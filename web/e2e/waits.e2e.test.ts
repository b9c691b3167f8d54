// Wait nodes in a real browser (Debian's Chromium through playwright-core) against the real
// service: the count in the navigation, Approve with a comment on the run page, the resume URL.
// A failing test saves a screenshot.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig } from "../../test/helpers/context.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { flow, startTestWorker } from "../../test/helpers/runs.js";

const screenshots = path.join(webDir, ".screenshots");
const TIMEOUT = 180_000;
/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };

describe("waits in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
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
    await ensureDashboard((line) => process.stdout.write(`[waits e2e] ${line}\n`));
    expect(existsSync(path.join(webDist, "index.html"))).toBe(true);
    const taskQueue = `waits-e2e-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue });
    const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "waits-e2e"));
    const app = createApp({ ...deps, dashboardDir: webDist });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createTestUser("waits-browser");
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
  }, TIMEOUT);

  function screenshotOnFailure(context: TestContext) {
    context.onTestFailed(async () => {
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `${context.task.name.replace(/[^a-z0-9]+/gi, "-")}-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[waits e2e] screenshot of the failure: ${file}\n`);
    });
  }

  /** A run of a new flow, waiting at its wait node `ask` (recorded in the database). */
  async function waitingRun(config: object, edge: string) {
    const definition = flow(
      [
        { id: "ask", type: "wait", name: "Ship it?", config },
        { id: "after", type: "set", config: { fields: { shipped: true } } },
      ],
      [
        ["start", "ask"],
        ["ask", "after", edge],
      ],
    );
    const created = await request(server).post("/api/flows").set("Cookie", cookie).send({ name: "Ship", definition });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = await request(server)
      .post(`/api/workflows/${created.body.id}/run`)
      .set("Cookie", cookie)
      .send({ input: {} });
    expect(started.status).toBe(201);
    const runId = started.body.run_id as string;
    await expect
      .poll(
        async () => (await request(server).get(`/api/runs/${runId}/waits`).set("Cookie", cookie)).body.items.length,
        SHOWN,
      )
      .toBe(1);
    return runId;
  }

  it("counts the pending wait in the navigation; Approve with a comment on the run page lets the run go on", async (context) => {
    screenshotOnFailure(context);
    const runId = await waitingRun({ message: "Ship order 7?" }, "approved");
    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await expect.poll(() => page.getByTestId("pending-waits").textContent(), SHOWN).toBe("1");

    await page.locator(".topbar nav").getByRole("link", { name: /Waits/ }).click();
    await page.getByRole("heading", { name: "Waiting for you" }).waitFor();
    const row = page.locator(`tr[data-wait]`);
    expect(await row.textContent()).toContain("Ship order 7?");
    await row.getByRole("link", { name: "Open" }).click();
    await page.waitForURL(`**/runs/${runId}`);

    const card = page.locator(".card[data-wait]");
    expect(await card.textContent()).toContain("Ship it? (ask)");
    await card.getByLabel("Comment").fill("looks right");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => card.textContent(), SHOWN).toMatch(/approved by waits-browser name .*: “looks right”/);
    await expect.poll(() => page.locator("h1 .badge").textContent(), SHOWN).toBe("success");
    // Deciding refreshed the count: nothing is pending any more.
    await expect.poll(() => page.getByTestId("pending-waits").count(), SHOWN).toBe(0);
    const run = await request(server).get(`/api/runs/${runId}`).set("Cookie", cookie);
    expect(run.body.run).toMatchObject({ status: "success", output: { shipped: true } });
  });

  it("shows a resume wait's URL on the run page, which another system POSTs to once", async (context) => {
    screenshotOnFailure(context);
    const runId = await waitingRun({ mode: "resume" }, "resumed");
    await page.goto(`${base}/runs/${runId}`);
    const card = page.locator(".card[data-wait]");
    const url = await card.locator("code").textContent();
    expect(url).toMatch(new RegExp(`^${base}/api/waits/resume/wr_[A-Za-z0-9_-]{43}$`));

    const resumed = await fetch(url!, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ carrier: "DHL" }),
    });
    expect(resumed.status).toBe(200);
    await expect.poll(() => card.textContent(), SHOWN).toMatch(/resumed/);
    await expect.poll(() => page.locator("h1 .badge").textContent(), SHOWN).toBe("success");
    expect((await fetch(url!, { method: "POST" })).status).toBe(409);
  });
});
