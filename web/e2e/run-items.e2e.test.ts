// A run's page in Chromium for a node that runs per item: its progress (done / failed / total)
// while it runs, then its items page by page with their results and errors, failed ones alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 30_000 };
const ITEMS = 60;

describe("a run's page: a node per item", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // The API the items call: 120 ms an item, 400 for the items whose number ends with 7.
    service = await startDashboardService((req, res) => {
      const n = Number(new URL(req.url!, "http://x").pathname.split("/").at(-1));
      setTimeout(() => {
        if (n % 10 === 7) res.writeHead(400, { "Content-Type": "text/plain" }).end("no such contact");
        else res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ contact: n }));
      }, 120);
    });
    ({ context, page } = await service.loggedIn({ width: 1280, height: 900 }));
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await service?.stop();
  }, TIMEOUT);

  it("shows the node's progress while it runs, then its items page by page, the failed ones alone", async (test) => {
    test.onTestFailed(async () => {
      await service.screenshot(page, test.task.name);
    });
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Enrich contacts",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          {
            id: "lookup",
            type: "http_request",
            name: "Look up each contact",
            config: { url: `${service.target.url}/contacts/{{ item }}` },
            items: { from: "{{ input.rows }}", concurrency: 2, on_error: "skip" },
          },
        ],
        edges: [{ from: "start", to: "lookup" }],
      },
    });
    const { run_id: runId } = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
      input: { rows: Array.from({ length: ITEMS }, (_, n) => n) },
    });
    await page.goto(`${service.base}/runs/${runId}`);

    const progress = page.getByRole("status", { name: "Items of Look up each contact" });
    // While it runs: some items done, not all.
    await expect
      .poll(
        async () => Number(/(\d+) done/.exec((await progress.textContent().catch(() => "")) ?? "")?.[1] ?? 0),
        SETTLED,
      )
      .toBeGreaterThan(0);
    const midway = (await progress.textContent())!;
    expect(midway).toMatch(/ · 60 in all/);
    expect(Number(/(\d+) done/.exec(midway)![1]) + Number(/(\d+) failed/.exec(midway)![1])).toBeLessThan(ITEMS);

    expect(await service.runEnded(context, runId)).toBe("success");
    await expect.poll(() => progress.textContent(), SETTLED).toMatch(/54 done · 6 failed · 60 in all/);

    const rows = page.locator('[data-items="lookup"] tr[data-item]');
    const indices = () => rows.evaluateAll((all) => all.map((row) => Number(row.getAttribute("data-item"))));
    await expect.poll(indices, SETTLED).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(await page.locator('[data-items="lookup"] tr[data-item="3"]').textContent()).toContain('"contact": 3');
    expect(await page.locator('[data-items="lookup"] tr[data-item="7"]').textContent()).toMatch(
      /failed.*answered 400 \(NodeFatalError\)/,
    );

    await page.locator('[data-items="lookup"] .pager').getByRole("button", { name: "Next" }).click();
    await expect.poll(indices, SETTLED).toEqual(Array.from({ length: 20 }, (_, n) => n + 20));

    await page.getByLabel("Items of Look up each contact shown").selectOption("failed");
    await expect.poll(indices, SETTLED).toEqual([7, 17, 27, 37, 47, 57]);
  });
});
