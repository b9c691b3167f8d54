// Mapping that builds what it shows, in Chromium against the real service: webhook → HTTP call (to
// a loopback server) → condition → two sets, whose fields are filled by clicks in the input panel
// alone. A click puts into each field what fits its type (the condition's Value gets the bare
// reference, a set node a field), the preview shows exactly what is saved, the condition goes true
// for 120 > 100 in the next run, and a field that does not parse stops the save, named.
import type { IncomingMessage, ServerResponse } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

/** The third party the HTTP node calls: an order of 120. */
function shop(_req: IncomingMessage, res: ServerResponse) {
  res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ amount: 120, id: "o-1" }));
}

describe("mapping by clicks", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage({ thirdParty: shop });
  let flowId: string;
  let hookPath: string;

  /** Calls the flow's hook and waits for its run; the run's id. */
  async function callHook(): Promise<string> {
    const { service, context } = session;
    const accepted = await service.api<{ run_id: string }>(context, "POST", hookPath, { order: 1 });
    expect(await service.runEnded(context, accepted.run_id)).toBe("success");
    return accepted.run_id;
  }

  beforeAll(async () => {
    const { service, context } = session;
    const flow = await service.api<{ id: string; hook: { path: string } }>(context, "POST", "/api/flows", {
      name: "Big orders",
      definition: {
        nodes: [
          { id: "hook", type: "webhook", config: {} },
          { id: "http_request", type: "http_request", config: { method: "GET", url: `${service.target.url}/order` } },
          {
            id: "check",
            type: "condition",
            name: "Check amount",
            config: { left: 0, operator: "greater_than", right: 100 },
          },
          { id: "big", type: "set", name: "Big", config: { fields: {} } },
          { id: "small", type: "set", name: "Small", config: { fields: {} } },
        ],
        edges: [
          { from: "hook", to: "http_request" },
          { from: "http_request", to: "check" },
          { from: "check", to: "big", branch: "true" },
          { from: "check", to: "small", branch: "false" },
        ],
      },
    });
    flowId = flow.id;
    hookPath = flow.hook.path;
    // One call: its run's outputs are the sample the input panel shows.
    await callHook();
  }, TIMEOUT);

  const codeText = (key: string) => session.page.locator(`[data-field="${key}"] .cm-content`).textContent();
  const preview = (key: string) => session.page.locator(`[data-preview="${key}"]`).textContent();
  const insert = (reference: string) =>
    session.page
      .locator(".input-panel")
      .getByRole("button", { name: `Insert {{ ${reference} }}`, exact: true })
      .click();
  const select = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`).click();

  it("builds the flow it shows: the condition goes true for 120 > 100", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/flows/${flowId}`);
    await select("check");
    await page.locator(".input-panel").getByText("From the run").waitFor();
    // The condition's Value is a value: the bare reference, previewed as the number it reads.
    await insert("nodes.http_request.body.amount");
    await expect.poll(() => codeText("left")).toBe("{{ nodes.http_request.body.amount }}");
    await expect.poll(() => preview("left")).toBe("With the sample: 120");
    expect(await page.locator(".field-json.invalid").count()).toBe(0);

    // A set node's fields are a map: the click adds a field named after the value.
    await select("big");
    await insert("nodes.http_request.body.amount");
    await expect.poll(() => codeText("fields")).toContain('"amount": "{{ nodes.http_request.body.amount }}"');
    await expect.poll(() => preview("fields")).toBe('With the sample: {"amount":120}');
    await select("small");
    await insert("nodes.http_request.body.id");
    await expect.poll(() => codeText("fields")).toContain('"id": "{{ nodes.http_request.body.id }}"');

    // Published, so that the production hook runs it.
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    const saved = await service.api<{ definition: { nodes: Array<{ id: string; config: unknown }> } }>(
      context,
      "GET",
      `/api/flows/${flowId}`,
    );
    expect(saved.definition.nodes.find((n) => n.id === "check")!.config).toMatchObject({
      left: "{{ nodes.http_request.body.amount }}",
      operator: "greater_than",
      right: 100,
    });

    const runId = await callHook();
    const { run } = await service.api<{ run: { output: unknown } }>(context, "GET", `/api/runs/${runId}`);
    expect(run.output).toEqual({ amount: 120 });
    const steps = await service.api<{ items: Array<{ node_id: string; status: string; branch: string | null }> }>(
      context,
      "GET",
      `/api/runs/${runId}/steps`,
    );
    const byNode = Object.fromEntries(steps.items.map((step) => [step.node_id, step]));
    expect(byNode.check).toMatchObject({ status: "success", branch: "true" });
    expect(byNode.big!.status).toBe("success");
    expect(byNode.small?.status ?? "skipped").toBe("skipped");
  });

  it("refuses to save a field that does not parse, naming it, until it is fixed", async () => {
    const { service, context, page } = session;
    await select("check");
    const right = page.locator('[data-field="right"] .cm-content');
    await right.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type('{ "at least": {{ input.x');
    await page.locator('[data-field="right"]').locator("xpath=..").getByRole("alert").waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Not saved" });
    await expect
      .poll(() => refusal.textContent())
      .toContain("“Compare with” of Check amount: Compare with is not valid JSON");
    // Nothing was sent: the flow is still at version 2.
    const flow = await service.api<{ version: number }>(context, "GET", `/api/flows/${flowId}`);
    expect(flow.version).toBe(2);

    // Another node and back: the text typed is still there, and so is its error.
    await select("big");
    await select("check");
    await expect.poll(() => codeText("right")).toContain('"at least": {{ input.x');
    await right.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("150");
    await expect.poll(() => refusal.count()).toBe(0);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 3.").waitFor();
  });

  it("completes a reference closing its }}, on screen, in fields that wrap", async () => {
    const { page } = session;
    await select("check");
    const left = page.locator('[data-field="left"] .cm-content');
    await left.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("{{ nodes.http_request.body.am");
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "nodes.http_request.body.amount" });
    await option.waitFor();
    const box = (await page.locator(".cm-tooltip-autocomplete").boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    await option.click();
    await expect.poll(() => codeText("left")).toBe("{{ nodes.http_request.body.amount }}");

    // A long value wraps in its field instead of running out of view.
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type(`"${"a long value ".repeat(20)}"`);
    const scroller = page.locator('[data-field="left"] .cm-scroller');
    expect(await scroller.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await select("http_request");
    const url = page.locator("#field-url");
    await url.fill(`${session.service.target.url}/order?${"x=1&".repeat(40)}`);
    expect(await url.evaluate((el) => el.scrollWidth <= el.clientWidth && el.clientHeight > 30)).toBe(true);
  });
});
