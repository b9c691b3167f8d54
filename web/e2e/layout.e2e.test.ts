// Every main page at phone, laptop and wide-screen widths, in Chromium against the real service:
// no horizontal scrollbar on the page itself (wide content scrolls in its own box), no console
// error, and (at 390 and 1280 px) no serious or critical axe-core violation. Each failing page and
// width leaves a screenshot under web/.screenshots/.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { openWhenReady, startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 240_000;
const WIDTHS = [360, 390, 1280, 1920];
const LONG = "quarterly-invoice-reconciliation-for-the-northern-region-warehouses";

/** Run in the page (this project's Node types have no DOM): its width, and what reaches furthest right. */
const MEASURE_WIDTH = `(() => {
  let widest = "";
  let right = window.innerWidth;
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.right > right + 0.5) {
      right = box.right;
      widest = element.tagName.toLowerCase() + "." + [...element.classList].join(".") + " (right edge " + Math.round(box.right) + " px)";
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, widest };
})()`;

describe("the dashboard's layout from phones to wide screens", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  /** The paths of the main pages and what shows once each has loaded its data. */
  let pages: Array<{ name: string; path: string; ready: string }>;

  beforeAll(async () => {
    // The third party the flow calls: not there (404), so the run fails with a long error.
    service = await startDashboardService((_req, res) => {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: `no such order: ${LONG}` }));
    });
    const { context } = await service.loggedIn({ width: 1280, height: 800 });
    try {
      // Data with long names, URLs and values: what pushes a narrow page wide.
      const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
        name: `Invoice sync: ${LONG.replaceAll("-", " ")}`,
        definition: {
          nodes: [
            { id: "start", type: "manual", name: "Manual start", config: {}, position: { x: 0, y: 0 } },
            {
              id: "prepare_the_order_payload",
              type: "set",
              config: { fields: { order: "{{ input.order }}", note: LONG.repeat(3) } },
              position: { x: 240, y: 0 },
            },
            {
              id: "call_the_warehouse",
              type: "http_request",
              name: "Call the warehouse",
              config: { url: `${service.target.url}/orders/${LONG}/{{ input.order }}` },
              position: { x: 480, y: 0 },
            },
          ],
          edges: [
            { from: "start", to: "prepare_the_order_payload" },
            { from: "prepare_the_order_payload", to: "call_the_warehouse" },
          ],
        },
      });
      const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
        input: { order: LONG },
      });
      await service.runEnded(context, started.run_id);
      await service.api(context, "POST", "/api/settings/webhooks", {
        url: `${service.target.url}/hooks/${LONG}/${LONG}`,
        events: ["run.completed", "run.failed", "flow.updated"],
      });
      await service.api(context, "POST", "/api/agent/memory", {
        agent: "assistant",
        key: `customer:${LONG}`,
        value: { note: LONG.repeat(4) },
      });
      // A pending invite with a long e-mail: listed in the settings, and its link's page.
      const invited = await service.api<{ accept_url: string }>(context, "POST", "/api/workspace/members", {
        email: `${LONG.slice(0, 60)}@example.com`,
        role: "editor",
      });
      pages = [
        { name: "home", path: "/", ready: "h1:text('Home')" },
        { name: "flows", path: "/flows", ready: `a[href="/flows/${flow.id}"]` },
        { name: "editor", path: `/flows/${flow.id}`, ready: '.react-flow__node[data-id="call_the_warehouse"]' },
        { name: "runs", path: "/runs", ready: `a[href="/runs/${started.run_id}"]` },
        {
          name: "run",
          path: `/runs/${started.run_id}`,
          ready: '[data-step="call_the_warehouse"] .badge.status-failed',
        },
        { name: "settings", path: "/settings", ready: "[data-endpoint]" },
        { name: "agents", path: "/agents", ready: ".agent-memory code" },
        { name: "credentials", path: "/credentials", ready: "h1:text('Credentials')" },
        { name: "waits", path: "/waits", ready: "h1:text('Waiting for you')" },
        { name: "invite", path: invited.accept_url, ready: "button:text('Join the workspace')" },
      ];
    } finally {
      await context.close();
    }
  }, TIMEOUT);

  afterAll(async () => {
    await service?.stop();
  }, TIMEOUT);

  const open = (page: Page, path: string, ready: string) => openWhenReady(page, `${service.base}${path}`, ready);

  /** Problems of the page shown: a page-wide horizontal scrollbar, console errors since `errors` was cleared. */
  async function problemsOf(page: Page, errors: string[]): Promise<string[]> {
    const { scrollWidth, innerWidth, widest } = await page.evaluate<{
      scrollWidth: number;
      innerWidth: number;
      widest: string;
    }>(MEASURE_WIDTH);
    const problems = errors.map((error) => `console error: ${error}`);
    if (scrollWidth > innerWidth) problems.push(`the page is ${scrollWidth} px wide in ${innerWidth} px; ${widest}`);
    return problems;
  }

  for (const width of WIDTHS) {
    it(`shows every main page at ${width} px without a horizontal scrollbar or a console error`, async () => {
      const { context, page } = await service.loggedIn({ width, height: width < 768 ? 844 : 900 });
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      const found: string[] = [];
      try {
        for (const { name, path, ready } of pages) {
          errors.length = 0;
          await open(page, path, ready);
          const problems = await problemsOf(page, errors);
          // Accessibility at a phone's and a laptop's width (the layouts differ).
          if (width === 390 || width === 1280) {
            problems.push(...(await seriousAxeViolations(page)).map((violation) => `axe: ${violation}`));
          }
          if (problems.length > 0) {
            await service.screenshot(page, `layout-${name}-${width}`);
            found.push(...problems.map((problem) => `${name} at ${width} px: ${problem}`));
          }
        }
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    });
  }

  it("shows the login page at a phone's and a laptop's width with no serious accessibility violation", async () => {
    const found: string[] = [];
    for (const width of [390, 1280]) {
      const context = await service.browser.newContext({ viewport: { width, height: 844 } });
      try {
        const page = await context.newPage();
        await page.goto(service.base);
        await page.locator('input[type="password"]').waitFor();
        found.push(...(await seriousAxeViolations(page)).map((violation) => `login at ${width} px: ${violation}`));
      } finally {
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });

  it("collapses the navigation behind a menu button on a phone, with Log out always in reach", async () => {
    const { context, page } = await service.loggedIn({ width: 390, height: 844 });
    try {
      await open(page, "/runs", "h1:text('Runs')");
      const menu = page.getByRole("button", { name: "Menu" });
      const flowsLink = page.locator(".topbar nav").getByRole("link", { name: "Flows", exact: true });
      expect(await flowsLink.isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Log out" }).isVisible()).toBe(true);
      expect(await menu.getAttribute("aria-expanded")).toBe("false");

      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await flowsLink.click();
      await page.getByRole("heading", { name: "Flows" }).waitFor();
      // Following a link closes the menu again.
      expect(await flowsLink.isVisible()).toBe(false);
      expect(await menu.getAttribute("aria-expanded")).toBe("false");

      // Esc closes it too.
      await menu.click();
      await flowsLink.waitFor();
      await page.keyboard.press("Escape");
      expect(await flowsLink.isVisible()).toBe(false);

      // On a wide screen there is no menu button: the links are there.
      await page.setViewportSize({ width: 1280, height: 800 });
      expect(await menu.isVisible()).toBe(false);
      expect(await flowsLink.isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("shows the editor on a phone as a read-only canvas with the node list, a node's settings a tap away", async () => {
    const { context, page } = await service.loggedIn({ width: 390, height: 844 });
    try {
      const editor = pages.find((p) => p.name === "editor")!;
      await open(page, editor.path, editor.ready);
      expect(await page.getByRole("complementary", { name: "Node palette" }).count()).toBe(0);
      // The canvas takes a good part of the screen, not a sliver.
      const canvas = await page.getByTestId("canvas").boundingBox();
      expect(canvas!.width).toBeGreaterThan(300);
      expect(canvas!.height).toBeGreaterThan(300);
      // Nodes stay where they are and take no new edges.
      const node = page.locator('.react-flow__node[data-id="call_the_warehouse"]');
      expect(await node.getAttribute("class")).not.toMatch(/\bdraggable\b/);
      expect(await page.locator(".react-flow__handle.connectable").count()).toBe(0);
      // The list names the nodes (their id when they have no name) in the order they run.
      const items = page.getByRole("list", { name: "Nodes" }).locator("li");
      expect(await items.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-node")))).toEqual([
        "start",
        "prepare_the_order_payload",
        "call_the_warehouse",
      ]);
      await items.filter({ hasText: "Call the warehouse" }).getByRole("button").click();
      expect(await page.locator("#field-url").inputValue()).toContain("/orders/");
      expect(await page.getByRole("button", { name: "Remove node" }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("shows the runs as cards on a phone, each with its status", async () => {
    const { context, page } = await service.loggedIn({ width: 390, height: 844 });
    try {
      await open(page, "/runs", pages.find((p) => p.name === "runs")!.ready);
      const status = page.locator("table.list tbody tr").first().locator(".badge");
      expect(await status.textContent()).toBe("failed");
      const box = await status.boundingBox();
      expect(box).not.toBeNull();
      // In view, not cut off to the right.
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  });
});
