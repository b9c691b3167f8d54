// Trying a flow without putting it live, in Chromium against the real service: a new flow (inactive)
// is built on the canvas (a set node from the palette, connected, its field filled), never saved
// nor activated; Test flow with a typed input runs the canvas as it is as a test run, and each
// node's result shows on the canvas and in the side panel. The flow stays inactive at version 1,
// the run is a test run (trigger test); "Test this node" then starts from the node's input in it.
import { describe, expect, it } from "vitest";
import { useDashboardPage, shownTestRun } from "./dashboard-service.js";

const TIMEOUT = 180_000;

describe("test flow in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);

  async function connect(from: string, to: string) {
    const { page } = session;
    const source = await canvasNode(from).locator(".react-flow__handle.source").boundingBox();
    const sink = await canvasNode(to).locator(".react-flow__handle.target").boundingBox();
    if (!source || !sink) throw new Error(`handles of ${from} → ${to} are not on screen`);
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(sink.x + sink.width / 2, sink.y + sink.height / 2, { steps: 12 });
    await page.mouse.up();
  }

  /** Replaces the text of a CodeMirror field (insertText: no bracket auto-closing). */
  async function fillCode(field: string, text: string) {
    const { page } = session;
    const content = page.locator(`.code-field[data-field="${field}"] .cm-content`);
    await content.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
  }

  it("runs the unsaved canvas of an inactive flow as a test run and shows each node's result", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/flows`);
    await page.getByLabel("New flow name").fill("Try me");
    await page.getByRole("button", { name: "Create flow" }).click();
    await page.waitForURL(/\/flows\/wf_/);
    const flowId = /\/flows\/(wf_[0-9a-f]+)/.exec(page.url())![1]!;
    await canvasNode("start").waitFor();
    expect(await page.locator(".editor-bar .badge").first().textContent()).toBe("inactive");

    // Built on the canvas: a set node from the palette, connected after the trigger, its field filled.
    const canvas = page.getByTestId("canvas");
    await page.locator('[data-palette-type="set"]').dragTo(canvas, { targetPosition: { x: 460, y: 260 } });
    await canvasNode("set").waitFor();
    await connect("start", "set");
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);
    await canvasNode("set").click();
    await fillCode("fields", '{ "greeting": "hello {{ input.name }}" }');
    // Back to the flow's panel (no node selected): the input and Test flow.
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
    await fillCode("run-input", '{ "name": "Ada" }');
    // The plain run still needs an active flow (and runs the published version); the test does not.
    expect(await page.getByRole("button", { name: "Run", exact: true }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Test flow" }).click();

    // Each node's result on the canvas, and the steps in the panel.
    await expect
      .poll(() => canvasNode("set").locator("[data-test-state]").getAttribute("data-test-state"), { timeout: 30_000 })
      .toBe("success");
    expect(await canvasNode("start").locator("[data-test-state]").getAttribute("data-test-state")).toBe("success");
    const { results, runId } = await shownTestRun(page);
    expect(await results.locator('tr[data-step="set"] td[data-label="Status"] .badge').textContent()).toBe("success");

    // The run is a test run of the draft; the flow is as it was: inactive, version 1, unsaved here.
    const { run } = await service.api<{ run: { test: boolean; trigger: string; output: unknown } }>(
      context,
      "GET",
      `/api/runs/${runId}`,
    );
    expect(run).toMatchObject({ test: true, trigger: "test", output: { greeting: "hello Ada" } });
    const flow = await service.api<{ status: string; version: number; definition: { nodes: unknown[] } }>(
      context,
      "GET",
      `/api/flows/${flowId}`,
    );
    expect(flow).toMatchObject({ status: "inactive", version: 1 });
    expect(flow.definition.nodes).toHaveLength(1);
    expect(await page.locator(".badge.unsaved").count()).toBe(1);

    // "Test this node" starts from the node's input in that test run, not from {}.
    await canvasNode("set").click();
    const panel = page.locator("details.node-test");
    await panel.locator("summary").click();
    const sample = panel.getByLabel("Sample input (JSON)");
    await expect.poll(async () => JSON.parse(await sample.inputValue()) as unknown).toEqual({ name: "Ada" });
    await panel.getByRole("button", { name: "Run this node" }).click();
    const output = panel.getByLabel("Test output");
    await output.waitFor({ timeout: 30_000 });
    expect(JSON.parse((await output.textContent()) ?? "null")).toEqual({ greeting: "hello Ada" });
  });
});
