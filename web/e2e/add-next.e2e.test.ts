// Building faster, in Chromium against the real service: "+" on a node's output opens a searchable
// picker of the catalog, used by keyboard (type, arrows, Enter, Esc), that adds the next node right
// of the node, on no other node, connected from that output; a double-click in the palette places
// without overlap too and connects from the selected node; a condition has a "+" on each of its
// outputs, true and false, each connecting its node from that branch (the false one's placed
// below the true one's). Each edge is read back through the API after a save.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { canvasGeometry, type Box } from "./canvas-geometry.js";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

interface SavedFlow {
  version: number;
  definition: {
    nodes: Array<{ id: string; type: string }>;
    edges: Array<{ from: string; to: string; branch?: string }>;
  };
}

const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every pair of nodes on the canvas apart. */
async function expectNoOverlap(page: Page) {
  const { nodes } = await canvasGeometry(page, '[data-testid="canvas"]');
  for (const [i, a] of nodes.entries())
    for (const b of nodes.slice(i + 1)) expect(intersects(a.box, b.box), `${a.id} on ${b.id}`).toBe(false);
  return nodes;
}

/** The focused element's accessible label (run in the page: this project's Node types have no DOM). */
const focusedLabel = (page: Page) => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')");

/** Moves the picker's active option to `type` with the arrow keys, then adds it with Enter. */
async function pickWithKeys(page: Page, type: string) {
  const active = page.locator('.node-picker [role="option"][aria-selected="true"]');
  await page.keyboard.press("End");
  await page.keyboard.press("Home");
  for (let presses = 0; presses < 40 && (await active.getAttribute("data-picker-type")) !== type; presses++)
    await page.keyboard.press("ArrowDown");
  expect(await active.getAttribute("data-picker-type")).toBe(type);
  await page.keyboard.press("Enter");
}

describe('"+" on a node adds the next one', { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);
  let flowId: string;

  beforeAll(async () => {
    const { service, context } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Faster",
      definition: {
        nodes: [{ id: "start", type: "manual", name: "Start", config: {}, position: { x: 80, y: 120 } }],
        edges: [],
      },
    });
    flowId = flow.id;
  }, TIMEOUT);

  /** Publishes the canvas (saved as the draft first), and reads the flow back. */
  async function save(version: number) {
    const { service, context, page } = session;
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText(`Published version ${version}: production runs it now.`).waitFor();
    return service.api<SavedFlow>(context, "GET", `/api/flows/${flowId}`);
  }

  it('adds an HTTP node connected from the trigger with "+" and the picker, by keyboard', async () => {
    const { service, page } = session;
    await page.goto(`${service.base}/flows/${flowId}`);
    await canvasNode("start").hover();
    await page.getByRole("button", { name: "Add a node after Start" }).click();
    await page.getByRole("combobox", { name: "Find a node to add" }).waitFor();
    // The field has the focus: typing filters (a trigger is never offered after a node).
    await expect.poll(() => focusedLabel(page)).toBe("Find a node to add");
    await page.keyboard.type("http");
    expect(await page.locator('.node-picker [data-picker-type="manual"]').count()).toBe(0);
    await pickWithKeys(page, "http_request");

    await page.locator('.react-flow__node[data-id="http_request"]').waitFor();
    expect(await page.locator(".node-picker").count()).toBe(0);
    await expect.poll(() => page.locator('.react-flow__edge[data-id="e-start-http_request"]').count()).toBe(1);
    const nodes = await expectNoOverlap(page);
    const box = (id: string) => nodes.find((node) => node.id === id)!.box;
    expect(box("http_request").x).toBeGreaterThan(box("start").x + box("start").width);

    await page.locator("#field-url").fill("https://example.com/orders");
    const saved = await save(2);
    expect(saved.definition.nodes.map((node) => node.type).sort()).toEqual(["http_request", "manual"]);
    expect(saved.definition.edges).toEqual([expect.objectContaining({ from: "start", to: "http_request" })]);
  });

  it("closes the picker with Esc, places a second next node clear of the first, and connects a double-clicked one from the selected node", async () => {
    const { page } = session;
    const plus = page.getByRole("button", { name: "Add a node after Start" });
    await canvasNode("start").hover();
    await plus.click();
    await page.getByRole("combobox", { name: "Find a node to add" }).waitFor();
    await page.keyboard.press("Escape");
    expect(await page.locator(".node-picker").count()).toBe(0);
    await expect.poll(() => focusedLabel(page)).toBe("Add a node after Start");

    // Enter on the focused "+" opens it again: the trigger's row is taken, the debug node goes to another.
    await page.keyboard.press("Enter");
    await page.keyboard.type("debug");
    await pickWithKeys(page, "debug");
    await canvasNode("debug").waitFor();
    // The new node is selected: a double-click in the palette adds after it, connected from it.
    await page.locator('[data-palette-type="merge"]').dblclick();
    await canvasNode("merge").waitFor();
    const nodes = await expectNoOverlap(page);
    expect(nodes.map((node) => node.id).sort()).toEqual(["debug", "http_request", "merge", "start"]);

    const saved = await save(3);
    const edges = saved.definition.edges.map((edge) => `${edge.from}→${edge.to}`).sort();
    expect(edges).toEqual(["debug→merge", "start→debug", "start→http_request"]);
  });

  /** "+" on `output` of `from` (its label names both), then `type` picked by keyboard; the new node's id. */
  async function addOn(from: string, output: string, type: string, id: string) {
    const { page } = session;
    await canvasNode(from).hover();
    await page.getByRole("button", { name: `Add a node on ${output} of ${from}` }).click();
    await page.keyboard.type(type);
    await pickWithKeys(page, type);
    await canvasNode(id).waitFor();
  }

  it('"+" on a condition\'s false output adds a node connected from false, below the one added on true', async () => {
    const { page } = session;
    await canvasNode("merge").hover();
    await page.getByRole("button", { name: "Add a node after merge" }).click();
    await page.keyboard.type("condition");
    await pickWithKeys(page, "condition");
    await canvasNode("condition").waitFor();
    // A condition shows its outputs, each with its own "+", and no "+" of a main output.
    expect(await canvasNode("condition").locator(".flow-node-output-label").allTextContents()).toEqual([
      "true",
      "false",
    ]);
    expect(await page.getByRole("button", { name: "Add a node after condition" }).count()).toBe(0);
    await page.locator('.code-field[data-field="left"] .cm-content').click();
    await page.keyboard.insertText("{{ input.amount }}");

    // False first: its node keeps the row below, the true one's then takes the condition's row.
    await addOn("condition", "false", "debug", "debug_2");
    await expect.poll(() => page.locator('.react-flow__edge[data-id="e-condition-debug_2"]').count()).toBe(1);
    expect(
      await page.locator('.react-flow__edge[data-id="e-condition-debug_2"] .react-flow__edge-text').textContent(),
    ).toBe("false");
    await addOn("condition", "true", "debug", "debug_3");
    const nodes = await expectNoOverlap(page);
    const box = (id: string) => nodes.find((node) => node.id === id)!.box;
    for (const id of ["debug_2", "debug_3"])
      expect(box(id).x).toBeGreaterThan(box("condition").x + box("condition").width);
    expect(box("debug_3").y + box("debug_3").height).toBeLessThan(box("debug_2").y);

    const saved = await save(4);
    const fromCondition = saved.definition.edges.filter((edge) => edge.from === "condition");
    expect(fromCondition).toEqual([
      { from: "condition", to: "debug_2", branch: "false" },
      { from: "condition", to: "debug_3", branch: "true" },
    ]);
  });
});
