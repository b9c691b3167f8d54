// Layout by default, in Chromium against the real service: a branch flow created through the API
// without positions reads as a branch in the editor and on a run's page without a click (layers
// along the edges, the false branch below the true one, no node on another, no edge behind a node,
// labels clear of nodes), and the editor saves the places it gave with the next version.
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";
import { canvasGeometry, type Box, type CanvasGeometry } from "./canvas-geometry.js";

const TIMEOUT = 180_000;

/** The flow: manual → condition → wait → set, and the condition's false edge → another set. */
const BRANCH_FLOW = {
  nodes: [
    { id: "start", type: "manual", config: {} },
    {
      id: "check",
      type: "condition",
      name: "Big order?",
      config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
    },
    { id: "approve", type: "wait", name: "Approve it", config: { mode: "approval" } },
    { id: "ship", type: "set", name: "Ship", config: { fields: { shipped: true } } },
    { id: "skip", type: "set", name: "Ship at once", config: { fields: { shipped: true } } },
  ],
  edges: [
    { from: "start", to: "check" },
    { from: "check", to: "approve", branch: "true" },
    { from: "approve", to: "ship", branch: "approved" },
    { from: "check", to: "skip", branch: "false" },
  ],
};

const centerY = (box: Box) => box.y + box.height / 2;
const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
/** A box made smaller on every side: an edge ends on its node's border, not inside it. */
const inset = (box: Box, by: number): Box => ({
  x: box.x + by,
  y: box.y + by,
  width: box.width - 2 * by,
  height: box.height - 2 * by,
});
const contains = (box: Box, [x, y]: [number, number]) =>
  x > box.x && x < box.x + box.width && y > box.y && y < box.y + box.height;

/** The assertions that make the flow read as a branch; each fails on the old one-row layout. */
function expectBranchReads(geometry: CanvasGeometry) {
  const box = (id: string) => geometry.nodes.find((node) => node.id === id)!.box;
  expect(geometry.nodes.map((node) => node.id).sort()).toEqual(["approve", "check", "ship", "skip", "start"]);
  // Layers run left to right along the edges.
  expect(box("check").x).toBeGreaterThan(box("start").x + box("start").width);
  expect(box("approve").x).toBeGreaterThan(box("check").x + box("check").width);
  expect(box("ship").x).toBeGreaterThan(box("approve").x + box("approve").width);
  // The false branch sits in the true branch's layer, below it: not on its line.
  expect(box("skip").x).toBeLessThan(box("ship").x);
  expect(centerY(box("skip")) - centerY(box("approve"))).toBeGreaterThanOrEqual(box("approve").height);
  // No node on another.
  for (const [i, a] of geometry.nodes.entries())
    for (const b of geometry.nodes.slice(i + 1)) expect(intersects(a.box, b.box), `${a.id} on ${b.id}`).toBe(false);
  // No edge passes behind a node, and every label is clear of the nodes.
  expect(geometry.edges).toHaveLength(4);
  for (const edge of geometry.edges) {
    for (const node of geometry.nodes) {
      const behind = edge.points.filter((point) => contains(inset(node.box, 3), point));
      expect(behind, `edge ${edge.id} behind ${node.id}`).toEqual([]);
      if (edge.label) expect(intersects(edge.label, node.box), `label of ${edge.id} on ${node.id}`).toBe(false);
    }
  }
  expect(geometry.edges.filter((edge) => edge.label).length).toBe(3);
}

describe("layout by default", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flowId: string;

  beforeAll(async () => {
    const { service, context } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Orders",
      definition: BRANCH_FLOW,
    });
    flowId = flow.id;
  }, TIMEOUT);

  it("draws the run of a version without positions as a branch on the run's page", async () => {
    const { service, context, page } = session;
    // Version 1, made through the API, has no positions: its run pins it.
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flowId}/run`, {
      input: { amount: 5 },
    });
    expect(await service.runEnded(context, started.run_id)).toBe("success");
    await page.goto(`${service.base}/runs/${started.run_id}`);
    await page.locator('[data-run-node="skip"]').waitFor();
    expectBranchReads(await canvasGeometry(page, '[data-testid="run-canvas"]'));
  });

  it("draws a flow without positions as a branch in the editor, and saves the places with the next version", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/flows/${flowId}`);
    await page.locator('.react-flow__node[data-id="skip"]').waitFor();
    expectBranchReads(await canvasGeometry(page, '[data-testid="canvas"]'));
    // Laid out, not changed by the person: nothing to save yet.
    expect(await page.locator(".badge.unsaved").count()).toBe(0);

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 2.").waitFor();
    // Saved as the draft (version 2), which has the places.
    const saved = await service.api<{
      definition: { nodes: Array<{ id: string; position?: { x: number; y: number } }> };
    }>(context, "GET", `/api/flows/${flowId}/versions/2`);
    const at = new Map(saved.definition.nodes.map((node) => [node.id, node.position]));
    expect([...at.values()].every((position) => position !== undefined)).toBe(true);
    expect(at.get("skip")!.x).toBe(at.get("approve")!.x);
    expect(at.get("skip")!.y).toBeGreaterThan(at.get("approve")!.y);
  });
});
