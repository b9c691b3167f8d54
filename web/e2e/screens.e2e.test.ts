// The main pages' screens at 390 and 1280 px, compared with the baselines checked in under
// web/e2e/screens/ (screen-compare.ts): a changed look fails here until its new screens are
// written (npm run web:screens:update) and reviewed in the commit. The run's times are fixed in the
// database and the browser's time zone is UTC; what still changes from run to run (ids, the user's
// address, log times, the charts' days) is masked. Each screen is checked with axe-core too.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { openWhenReady, screenshotDir, startDashboardService, type DashboardService } from "./dashboard-service.js";
import { checkScreen } from "./screen-compare.js";
import { testPrisma } from "../../test/helpers/context.js";

const TIMEOUT = 300_000;
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** What varies between runs of the test on each page, painted over in the screenshots. */
const VARYING = [
  ".user",
  ".workspace",
  ".member-email",
  "select[aria-label='Workspace']",
  "code",
  "a[href^='/runs/run_']",
  ".chart",
  ".figure",
  ".busiest",
  ".log-time",
];

/** Run in the page (the protocol's evaluation is not inline script, which the dashboard's CSP refuses). */
const FIXED_WIDTH_MASKED = `(() => {
  const style = document.createElement("style");
  style.textContent = ${JSON.stringify(`${VARYING.join(", ")} { font-family: monospace !important; }`)};
  document.head.append(style);
})()`;

/**
 * The flow's, the run's and its steps' times, fixed: the lists, the timeline and the durations
 * read the same each time (a time of day read from the clock changed the flows table's column
 * widths with the number of its hour's digits).
 */
async function fixTimes(flowId: string, runId: string) {
  const startedAt = new Date("2026-03-02T09:30:00.000Z");
  const finishedAt = new Date("2026-03-02T09:30:01.250Z");
  const savedAt = new Date("2026-03-02T09:29:00.000Z");
  await testPrisma().flow.update({ where: { id: flowId }, data: { createdAt: savedAt, updatedAt: savedAt } });
  await testPrisma().run.update({ where: { id: runId }, data: { startedAt, finishedAt, durationMs: 1250 } });
  await testPrisma().runStep.updateMany({ where: { runId }, data: { startedAt, finishedAt, durationMs: 1250 } });
}

describe("the main pages' screens", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let pages: Array<{ name: string; path: string; ready: string }>;

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.writeHead(204).end());
    const { context } = await service.loggedIn({ width: 1280, height: 800 });
    try {
      const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
        name: "Order follow-up",
        description: "Thanks a customer and tells the team",
        definition: {
          nodes: [
            { id: "start", type: "manual", name: "New order", config: {} },
            {
              id: "check",
              type: "condition",
              name: "Big order?",
              config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
            },
            { id: "thank", type: "set", name: "Thank the customer", config: { fields: { note: "Thanks!" } } },
            { id: "log", type: "log", name: "Tell the team", config: { message: "small order" } },
          ],
          edges: [
            { from: "start", to: "check" },
            { from: "check", to: "thank", branch: "true" },
            { from: "check", to: "log", branch: "false" },
          ],
        },
      });
      const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
        input: { amount: 250 },
      });
      expect(await service.runEnded(context, started.run_id)).toBe("success");
      await fixTimes(flow.id, started.run_id);
      pages = [
        { name: "home", path: "/", ready: ".chart" },
        { name: "flows", path: "/flows", ready: `a[href="/flows/${flow.id}"]` },
        { name: "editor", path: `/flows/${flow.id}`, ready: '.react-flow__node[data-id="log"]' },
        { name: "runs", path: "/runs", ready: `a[href="/runs/${started.run_id}"]` },
        { name: "run", path: `/runs/${started.run_id}`, ready: '[data-run-node="thank"] .badge.status-success' },
        { name: "settings", path: "/settings", ready: "h1:text('Settings')" },
        { name: "credentials", path: "/credentials", ready: "h1:text('Credentials')" },
        { name: "agents", path: "/agents", ready: "h1:text('Agents')" },
      ];
    } finally {
      await context.close();
    }
  }, TIMEOUT);

  afterAll(async () => {
    await service?.stop();
  }, TIMEOUT);

  async function open(page: Page, pagePath: string, ready: string) {
    await openWhenReady(page, `${service.base}${pagePath}`, ready);
    // What is painted over is set in a fixed-width font, so that its varying text cannot move the layout.
    await page.evaluate(FIXED_WIDTH_MASKED);
    // Fonts and the canvases' first placement settled.
    await page.evaluate(
      "document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))",
    );
  }

  for (const viewport of WIDTHS) {
    it(`look as reviewed at ${viewport.width} px, without serious accessibility problems`, async () => {
      // One time zone and locale: the run's fixed times read the same on every machine.
      const { context, page } = await service.loggedIn(viewport, { timezoneId: "UTC", locale: "en-US" });
      const problems: string[] = [];
      try {
        for (const { name, path: pagePath, ready } of pages) {
          await open(page, pagePath, ready);
          const mask: Locator[] = VARYING.map((selector) => page.locator(selector));
          const shot = await page.screenshot({ animations: "disabled", caret: "hide", mask, maskColor: "#d0d4dc" });
          const problem = await checkScreen(
            service.browser,
            `${name}-${viewport.width}`,
            shot,
            path.join(screenshotDir, "screens"),
          );
          if (problem) problems.push(problem);
          problems.push(...(await seriousAxeViolations(page)).map((v) => `${name} at ${viewport.width} px: ${v}`));
        }
      } finally {
        await context.close();
      }
      expect(problems).toEqual([]);
    });
  }
});
