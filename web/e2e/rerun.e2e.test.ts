// Fix and rerun in Chromium against the real service: a run fails at a node; the flow is fixed
// through the API; on the failed run's page the dashboard says a newer version was saved, and a
// rerun from the failed node on the latest version, with the output of the node before it edited
// (invalid JSON first: it names the field and blocks the start), opens the new run: it succeeds,
// reads as a rerun of the first, and marks the nodes it carried over. A retry on the latest
// version takes one click. A viewer sees no rerun.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { uniqueEmail } from "../../test/helpers/identity.js";
import { startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 20_000 };

/** start → fetch (an upstream answer, its field renamed) → compute (reads the field) → `last`. */
const definition = (compute: string, last = "done") => ({
  nodes: [
    { id: "start", type: "manual", config: {} },
    { id: "fetch", type: "code", name: "Fetch the order", config: { code: "return { amount_cents: 120 };" } },
    { id: "compute", type: "code", name: "Compute the total", config: { code: compute } },
    { id: last, type: "set", config: { fields: { done: true } } },
  ],
  edges: [
    { from: "start", to: "fetch" },
    { from: "fetch", to: "compute" },
    { from: "compute", to: last },
  ],
});
const BROKEN =
  "if (input.amount === undefined) throw new Error('no amount in the answer'); return { total: input.amount * 2 };";
const FIXED = "return { total: input.amount_cents * 2 };";

describe("fix and rerun on a run's page", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let context: BrowserContext;
  let page: Page;
  let failedRun: string;

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.writeHead(204).end());
    ({ context, page } = await service.loggedIn({ width: 1280, height: 900 }));
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await service?.stop();
  }, TIMEOUT);

  function screenshotOnFailure(test: TestContext, of: () => Page = () => page) {
    test.onTestFailed(async () => {
      await service.screenshot(of(), test.task.name);
    });
  }

  const stepState = (id: string) => page.locator(`tr[data-step="${id}"] td[data-label="Status"] .badge`).textContent();

  it("reruns the failed node on the fixed version with the node before's output edited", async (test) => {
    screenshotOnFailure(test);
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Orders",
      definition: definition(BROKEN),
    });
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
      input: { order: "a1" },
    });
    failedRun = started.run_id;
    expect(await service.runEnded(context, failedRun)).toBe("failed");
    // The fix, saved as version 2 through the API (its last node renamed on the way).
    const current = await service.api<{ version: number }>(context, "GET", `/api/flows/${flow.id}`);
    const saved = await service.api<{ version: number }>(context, "PUT", `/api/flows/${flow.id}`, {
      version: current.version,
      definition: definition(FIXED, "finish"),
    });
    expect(saved.version).toBe(2);

    await page.goto(`${service.base}/runs/${failedRun}`);
    await page.locator("h1 .badge.status-failed").waitFor();
    // The page says a newer version exists, and offers to retry on it beside the plain retry.
    await page.getByRole("button", { name: "Retry on the latest version (v2)" }).waitFor();
    expect(await page.getByRole("button", { name: "Retry from the failed node" }).count()).toBe(1);
    expect(await page.locator(".toolbar .hint").last().textContent()).toBe("Version 2 was saved after this run.");

    // The failed node starts open: rerun from it.
    await page.locator("#step-compute").getByRole("button", { name: "Rerun from here" }).click();
    const dialog = page.getByRole("dialog", { name: "Rerun this run" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Rerun from").inputValue()).toBe("compute");
    expect(await dialog.getByRole("status").textContent()).toBe("Version 2 was saved after this run.");
    // The trigger's input is the run's, read from its step.
    expect(JSON.parse(await dialog.getByLabel("The trigger's input (JSON)").inputValue())).toEqual({ order: "a1" });
    await dialog.getByLabel("The latest version (v2)").check();

    // From a node the latest version no longer has: the API's answer, naming it, is shown.
    await dialog.getByLabel("Rerun from").selectOption("done");
    await dialog.getByRole("button", { name: "Start the rerun" }).click();
    await expect.poll(() => dialog.locator(".error-message").textContent(), SETTLED).toMatch(/\bdone\b/);
    expect(new URL(page.url()).pathname).toBe(`/runs/${failedRun}`);
    await dialog.getByLabel("Rerun from").selectOption("compute");
    // What the latest changed on the path the rerun runs: the fixed node, the renamed last one.
    await expect
      .poll(() => dialog.locator(".rerun-changes li").allTextContents(), SETTLED)
      .toEqual(["Compute the total compute: changed", "finish: new", "done: removed"]);

    await dialog.getByLabel(/Replace the output of Fetch the order/).check();
    const output = dialog.getByLabel("Output of Fetch the order (JSON)");
    expect(JSON.parse(await output.inputValue())).toEqual({ amount_cents: 120 });
    // Invalid JSON names the field and blocks the start.
    await output.fill('{"amount_cents": 5');
    await expect
      .poll(() => dialog.getByRole("alert").textContent())
      .toMatch(/^The output of Fetch the order is not valid JSON/);
    expect(await dialog.getByRole("button", { name: "Start the rerun" }).isDisabled()).toBe(true);
    await output.fill('{"amount_cents": 500}');
    await dialog.getByRole("button", { name: "Start the rerun" }).click();

    await page.waitForURL((url) => !url.pathname.endsWith(failedRun));
    const rerunId = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.locator("h1 .badge.status-success").waitFor(SETTLED);
    expect(await page.locator(".rerun-of").textContent()).toBe(
      ` · Rerun of ${failedRun} from Compute the total on version 2 (it ran version 1)`,
    );
    expect(await page.locator(`.rerun-of a[href="/runs/${failedRun}"]`).count()).toBe(1);
    // The nodes before the failed one were carried over, not run again; the edited output went on.
    await expect.poll(() => stepState("fetch"), SETTLED).toBe("carried over");
    expect(await stepState("start")).toBe("carried over");
    expect(await page.locator('tr[data-step="fetch"] .carried-over').textContent()).toBe(` from run ${failedRun}`);
    expect(await stepState("compute")).toBe("success");
    expect(await stepState("finish")).toBe("success");
    await page.locator('tr[data-step="compute"]').getByRole("button").first().click();
    const computed = page.locator('#step-compute [data-io="output"] pre');
    await expect
      .poll(async () => JSON.parse((await computed.textContent()) ?? "null"), SETTLED)
      .toEqual({
        total: 1000,
      });
    const { run } = await service.api<{ run: { rerun: { carried: string[]; overrides: unknown } } }>(
      context,
      "GET",
      `/api/runs/${rerunId}`,
    );
    expect(run.rerun.carried).toEqual(["start", "fetch"]);
    expect(run.rerun.overrides).toEqual({ outputs: { fetch: { amount_cents: 500 } } });
  });

  it("retries the failed run on the latest version in one click", async (test) => {
    screenshotOnFailure(test);
    await page.goto(`${service.base}/runs/${failedRun}`);
    await page.getByRole("button", { name: "Retry on the latest version (v2)" }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(failedRun));
    await page.locator("h1 .badge.status-success").waitFor(SETTLED);
    expect(await page.locator(".rerun-of").textContent()).toBe(
      ` · Rerun of ${failedRun} from the failed node on version 2 (it ran version 1)`,
    );
    // The upstream answer, unedited this time, carried over; the fixed node reads its field.
    await expect.poll(() => stepState("fetch"), SETTLED).toBe("carried over");
    await page.locator('tr[data-step="compute"]').getByRole("button").first().click();
    const computed = page.locator('#step-compute [data-io="output"] pre');
    await expect
      .poll(async () => JSON.parse((await computed.textContent()) ?? "null"), SETTLED)
      .toEqual({
        total: 240,
      });
  });

  it("shows a viewer no rerun or retry", async (test) => {
    const email = uniqueEmail("viewer");
    const invited = await service.api<{ accept_url: string }>(context, "POST", "/api/workspace/members", {
      email,
      role: "viewer",
    });
    const viewer = await service.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewer.newPage();
    viewerPage.setDefaultTimeout(30_000);
    screenshotOnFailure(test, () => viewerPage);
    try {
      const token = invited.accept_url.split("/").at(-1)!;
      await service.api(viewer, "POST", `/api/invites/${token}/accept`, {
        name: "A Viewer",
        password: "a-viewer-password",
      });
      await viewerPage.goto(`${service.base}/runs/${failedRun}`);
      await viewerPage.locator("h1 .badge.status-failed").waitFor();
      // The session is read (the header names the user) and the failed node is open.
      await viewerPage.locator("header .user").getByText(email).waitFor({ state: "attached" });
      await viewerPage.locator('#step-compute [data-io="input"]').waitFor();
      await viewerPage.waitForLoadState("networkidle");
      for (const name of [/^Rerun/, /^Retry/]) expect(await viewerPage.getByRole("button", { name }).count()).toBe(0);
      // The same page as an editor of the workspace (its owner) offers them.
      await page.goto(`${service.base}/runs/${failedRun}`);
      await page.locator("#step-compute").getByRole("button", { name: "Rerun from here" }).waitFor();
      expect(await page.getByRole("button", { name: "Rerun…" }).count()).toBe(1);
    } finally {
      await viewer.close();
    }
  });
});
