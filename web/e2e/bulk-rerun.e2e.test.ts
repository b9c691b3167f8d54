// A flow's failures and their bulk rerun in Chromium against the real service: a flow whose code
// node fails on a missing field runs 5 times; the flow is fixed through the API; on the runs list
// filtered by the flow, its failures read as one group of 5; one click reruns them on the latest
// version, the operation's progress reaches 5 succeeded, and after a reload the group is gone.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueEmail } from "../../test/helpers/identity.js";
import { startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 60_000 };
const RUNS = 5;

/** start → compute (reads a field the input no longer has) → done. */
const definition = (compute: string) => ({
  nodes: [
    { id: "start", type: "manual", config: {} },
    { id: "compute", type: "code", name: "Compute the total", config: { code: compute } },
    { id: "done", type: "set", config: { fields: { done: true } } },
  ],
  edges: [
    { from: "start", to: "compute" },
    { from: "compute", to: "done" },
  ],
});
const BROKEN =
  "if (input.amount === undefined) throw new Error('no amount in the input'); return { total: input.amount * 2 };";
const FIXED = "return { total: input.amount_cents * 2 };";

describe("a flow's failures, rerun in bulk", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let context: BrowserContext;
  let page: Page;
  let flowId: string;

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.writeHead(204).end());
    ({ context, page } = await service.loggedIn({ width: 1280, height: 900 }));
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await service?.stop();
  }, TIMEOUT);

  it("reruns a group of failures on the fixed version and shows its progress", async (test) => {
    test.onTestFailed(async () => {
      await service.screenshot(page, test.task.name);
    });
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Totals",
      definition: definition(BROKEN),
    });
    for (let i = 0; i < RUNS; i++) {
      const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
        input: { amount_cents: 100 + i },
      });
      expect(await service.runEnded(context, started.run_id)).toBe("failed");
    }
    const current = await service.api<{ version: number }>(context, "GET", `/api/flows/${flow.id}`);
    const saved = await service.api<{ version: number }>(context, "PUT", `/api/flows/${flow.id}`, {
      version: current.version,
      definition: definition(FIXED),
    });
    expect(saved.version).toBe(2);
    flowId = flow.id;

    await page.goto(`${service.base}/runs?flow=${flow.id}&status=failed`);
    const failures = page.getByRole("region", { name: "Failures" });
    const group = failures.locator('tr[data-failure-node="compute"]');
    await group.waitFor();
    expect(await failures.locator("tbody tr").count()).toBe(1);
    expect(await group.locator(".failure-count").textContent()).toBe(String(RUNS));
    expect(await group.locator(".failure-error").textContent()).toMatch(/no amount in the input/);
    expect(await group.locator('td[data-label="Versions"]').textContent()).toBe("v1");
    // The filters (this flow, failed) offer a rerun of all they match too.
    await page.getByRole("button", { name: "Rerun all matching on the latest version (v2)" }).waitFor();

    await group.getByRole("button", { name: `Rerun these ${RUNS} on the latest version (v2)` }).click();
    const progress = page.getByRole("region", { name: "Bulk rerun" });
    await progress.waitFor();
    await expect
      .poll(() => progress.locator('[data-count="succeeded"]').textContent(), SETTLED)
      .toBe(`${RUNS} succeeded`);
    await expect.poll(() => progress.locator(".operation-status").textContent(), SETTLED).toBe("completed");
    expect(await progress.locator('[data-count="failed"]').textContent()).toBe("0 failed");
    expect(await progress.locator("progress").getAttribute("value")).toBe(String(RUNS));
    expect(await progress.getByRole("button", { name: "Cancel the rerun" }).count()).toBe(0);

    await page.reload();
    await failures.getByText("No failed runs of this flow wait for a rerun.").waitFor();
    expect(await failures.locator('tr[data-failure-node="compute"]').count()).toBe(0);
  });

  it("shows a viewer the failures but no rerun", async (test) => {
    const email = uniqueEmail("viewer");
    const invited = await service.api<{ accept_url: string }>(context, "POST", "/api/workspace/members", {
      email,
      role: "viewer",
    });
    const viewer = await service.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewer.newPage();
    viewerPage.setDefaultTimeout(30_000);
    test.onTestFailed(async () => {
      await service.screenshot(viewerPage, test.task.name);
    });
    try {
      const token = invited.accept_url.split("/").at(-1)!;
      await service.api(viewer, "POST", `/api/invites/${token}/accept`, {
        name: "A Viewer",
        password: "a-viewer-password",
      });
      await viewerPage.goto(`${service.base}/runs?flow=${flowId}&status=failed`);
      // The session is read (the header names the user) and the list and failures are shown.
      await viewerPage.locator("header .user").getByText(email).waitFor({ state: "attached" });
      await viewerPage
        .getByRole("region", { name: "Failures" })
        .getByText(/No failed runs/)
        .waitFor();
      await viewerPage.locator("tr[data-run]").first().waitFor();
      await viewerPage.waitForLoadState("networkidle");
      // A run selected: the selection's own actions, but no rerun.
      await viewerPage.locator("tr[data-run] td.select input").first().check();
      await viewerPage.getByRole("group", { name: "Selected runs" }).waitFor();
      expect(await viewerPage.getByRole("button", { name: /^Rerun/ }).count()).toBe(0);
      // The same list as the workspace's owner offers the rerun of all matching.
      await page.goto(`${service.base}/runs?flow=${flowId}&status=failed`);
      await page.getByRole("button", { name: "Rerun all matching on the latest version (v2)" }).waitFor();
    } finally {
      await viewer.close();
    }
  });
});
