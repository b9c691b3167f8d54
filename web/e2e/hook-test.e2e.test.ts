// A hook tested through its test address, in Chromium against the real service: a saved, active
// flow (webhook → set, saying "saved") is changed on the canvas, unsaved; "Listen for a test event"
// shows a one-use test address, a request to it (from outside the browser, with credentials in its
// headers) is captured once, without them, and becomes the run input; Test flow runs the draft on
// it, while the production hook keeps running the saved version.
import { describe, expect, it } from "vitest";
import { useDashboardPage, shownTestRun } from "./dashboard-service.js";

const TIMEOUT = 180_000;

describe("hook test event in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);

  /** Replaces the text of a CodeMirror field (insertText: no bracket auto-closing). */
  async function fillCode(field: string, text: string) {
    const { page } = session;
    const content = page.locator(`.code-field[data-field="${field}"] .cm-content`);
    await content.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
  }

  /** Calls the production hook; the output of the run it started. */
  async function callProduction(hookPath: string): Promise<unknown> {
    const { service, context } = session;
    const accepted = await service.api<{ run_id: string }>(context, "POST", hookPath, { amount: 7 });
    expect(await service.runEnded(context, accepted.run_id)).toBe("success");
    const { run } = await service.api<{ run: { output: unknown; test: boolean } }>(
      context,
      "GET",
      `/api/runs/${accepted.run_id}`,
    );
    expect(run.test).toBe(false);
    return run.output;
  }

  it("captures one request at the test address and tests the draft on it; production runs the saved version", async () => {
    const { service, context, page } = session;
    const flow = await service.api<{ id: string; status: string; hook: { path: string } }>(
      context,
      "POST",
      "/api/flows",
      {
        name: "Hook under test",
        definition: {
          nodes: [
            { id: "hook", type: "webhook", config: {} },
            { id: "say", type: "set", config: { fields: { said: "saved" } } },
          ],
          edges: [{ from: "hook", to: "say" }],
        },
      },
    );
    expect(flow.status).toBe("active");
    expect(await callProduction(flow.hook.path)).toEqual({ said: "saved" });

    // The draft says something else; it is not saved.
    await page.goto(`${service.base}/flows/${flow.id}`);
    await canvasNode("say").click();
    await fillCode("fields", '{ "said": "draft {{ input.body.amount }}" }');
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
    expect(await page.locator(".badge.unsaved").count()).toBe(1);

    // Listen: the test address is shown, apart from the production hook's.
    await page.getByRole("button", { name: "Listen for a test event" }).click();
    const testUrl = (await page.locator("[data-test-url]").textContent()) ?? "";
    expect(testUrl).toMatch(/\/api\/hooks\/test\/[A-Za-z0-9_-]{43}$/);
    expect(testUrl).not.toContain(flow.hook.path);
    expect(new URL(testUrl).hostname).toBe("127.0.0.1");

    // Meanwhile production still runs the saved version.
    expect(await callProduction(flow.hook.path)).toEqual({ said: "saved" });

    // A caller with the address, and credentials in its headers: captured once, starting no run.
    const call = () =>
      fetch(`${testUrl}?source=e2e`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: "Bearer e2e-secret-authorization",
          cookie: "sid=e2e-secret-cookie",
        },
        body: JSON.stringify({ amount: 120 }),
      });
    const first = await call();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ captured: true });
    expect((await call()).status).toBe(404);

    // The editor shows it as the run input, without the credentials.
    await page.getByText("Test event captured").waitFor({ timeout: 30_000 });
    const inputText = async () =>
      (await page.locator('.code-field[data-field="run-input"] .cm-content').innerText()).replace(/\s+/g, " ");
    await expect.poll(inputText).toContain('"amount": 120');
    expect(await inputText()).toContain('"source": "e2e"');
    expect(await inputText()).not.toContain("e2e-secret");

    // Test flow runs the draft on the captured request.
    await page.getByRole("button", { name: "Test flow" }).click();
    const { runId } = await shownTestRun(page);
    const { run } = await service.api<{ run: { test: boolean; output: unknown } }>(
      context,
      "GET",
      `/api/runs/${runId}`,
    );
    expect(run).toMatchObject({ test: true, output: { said: "draft 120" } });
    expect(JSON.stringify(run)).not.toContain("e2e-secret");

    // Production, after the test too, runs the saved version; the flow is at version 1, unsaved here.
    expect(await callProduction(flow.hook.path)).toEqual({ said: "saved" });
    const saved = await service.api<{ version: number }>(context, "GET", `/api/flows/${flow.id}`);
    expect(saved.version).toBe(1);
  });

  it("runs the draft to the selected node: it and its ancestors only", async () => {
    const { service, context, page } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Run to here",
      definition: {
        nodes: [
          { id: "hook", type: "webhook", config: {} },
          { id: "first", type: "set", config: { fields: { first: true } } },
          { id: "second", type: "set", config: { fields: { second: true } } },
        ],
        edges: [
          { from: "hook", to: "first" },
          { from: "first", to: "second" },
        ],
      },
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    await canvasNode("first").click();
    await page.getByRole("button", { name: "Run to here" }).click();
    const { runId } = await shownTestRun(page);
    const steps = await service.api<{ items: Array<{ node_id: string }> }>(context, "GET", `/api/runs/${runId}/steps`);
    expect(steps.items.map((step) => step.node_id).sort()).toEqual(["first", "hook"]);
  });
});
