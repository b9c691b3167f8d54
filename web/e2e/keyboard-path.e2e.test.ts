// The editor's keyboard path, in Chromium against the real service, without the mouse: a new flow
// created from the list, a node added from the palette (Tab to it, Enter), the trigger selected on
// the canvas (Tab, Enter) and connected to it with "Connect to", the node named, and the flow saved
// with Ctrl+S; the saved definition is read back through the API. Tab also leaves a code field.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

interface SavedFlow {
  version: number;
  definition: {
    nodes: Array<{ id: string; type: string; name?: string }>;
    edges: Array<{ from: string; to: string }>;
  };
}

/** Whether the focused element matches `selector` (run in the page: this project's Node types have no DOM). */
const focusedIs = (page: Page, selector: string) =>
  page.evaluate<boolean>(`Boolean(document.activeElement?.matches(${JSON.stringify(selector)}))`);

/** Presses Tab until the focus is on `selector`, as a person would; fails when it never gets there. */
async function tabTo(page: Page, selector: string, key = "Tab") {
  for (let presses = 0; presses < 120; presses++) {
    if (await focusedIs(page, selector)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe("the editor by keyboard", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();

  it("builds, connects, names and saves a two-node flow with the keyboard only", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/flows`);
    await tabTo(page, 'input[aria-label="New flow name"]');
    await page.keyboard.type("By keyboard");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/flows\/wf_/);
    const flowId = /\/flows\/(wf_[0-9a-f]+)/.exec(page.url())![1]!;
    await page.locator('.react-flow__node[data-id="start"]').waitFor();

    // The palette: filter, then Tab to the item and Enter adds it.
    await tabTo(page, 'input[aria-label="Filter nodes"]');
    await page.keyboard.type("debug");
    await tabTo(page, '[data-palette-type="debug"]');
    await page.keyboard.press("Enter");
    await page.locator('.react-flow__node[data-id="debug"]').waitFor();
    expect(await page.locator(".react-flow__edge").count()).toBe(0);

    // The trigger, selected on the canvas, then connected to the new node from the side panel.
    await tabTo(page, '.react-flow__node[data-id="start"]');
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Manual trigger" }).waitFor();
    await tabTo(page, 'select[name="connect-to"]');
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);

    // The new node, selected the same way, named; Ctrl+S saves from the field.
    await tabTo(page, '.react-flow__node[data-id="debug"]', "Shift+Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Debug", exact: true }).waitFor();
    await tabTo(page, 'input[name="node-name"]');
    await page.keyboard.type("Look at it");
    await page.keyboard.press("ControlOrMeta+S");
    await page.getByText("Saved: version 2.").waitFor();

    // Saved as the draft: version 2.
    const saved = await service.api<SavedFlow>(context, "GET", `/api/flows/${flowId}/versions/2`);
    expect(saved.definition.nodes.map((node) => [node.id, node.type, node.name ?? ""]).sort()).toEqual([
      ["debug", "debug", "Look at it"],
      ["start", "manual", "Manual trigger"],
    ]);
    expect(saved.definition.edges).toEqual([expect.objectContaining({ from: "start", to: "debug" })]);
  });

  it("leaves a code field with Tab, the field keeping what was typed", async () => {
    const { page } = session;
    // Esc on the selected node clears the selection: the side panel shows the run input, a code field.
    await tabTo(page, '.react-flow__node[data-id="debug"]', "Shift+Tab");
    await page.keyboard.press("Escape");
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
    await tabTo(page, '.code-field[data-field="run-input"] .cm-content');
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type('{"a": 1}');
    await page.keyboard.press("Tab");
    expect(await focusedIs(page, ".cm-content")).toBe(false);
    expect(await page.locator('.code-field[data-field="run-input"] .cm-content').textContent()).toBe('{"a": 1}');
  });
});
