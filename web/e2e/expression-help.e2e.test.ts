// Expression help in the editor, in Chromium against the real service: a new user fills a set
// node's field from an upstream node's output by clicking it in the input panel (no path typed),
// sees its value previewed by the worker's template engine, completes a reference inside {{ }},
// and the saved flow's run produces the value.
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

describe("expression help", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flowId: string;

  beforeAll(async () => {
    const { service, context } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Greetings",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          {
            id: "lookup",
            type: "code",
            name: "Find the customer",
            config: { code: "return { customer: { name: 'Ada', plan: 'pro' }, order: input.order };" },
          },
          { id: "greet", type: "set", name: "Greet", config: { fields: {} } },
        ],
        edges: [
          { from: "start", to: "lookup" },
          { from: "lookup", to: "greet" },
        ],
      },
    });
    flowId = flow.id;
    // The flow ran once: its outputs are the sample the editor shows.
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flowId}/run`, {
      input: { order: 7 },
    });
    expect(await service.runEnded(context, started.run_id)).toBe("success");
  }, TIMEOUT);

  const fieldsText = () => session.page.locator('[data-field="fields"] .cm-content').textContent();

  it("fills a set node's field from an upstream output with a click, previewed with the sample", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/flows/${flowId}`);
    await page.locator('.react-flow__node[data-id="greet"]').click();
    const panel = page.locator(".input-panel");
    await panel.getByText("From the run").waitFor();
    // The upstream node's output as a tree; the key is clicked, not a path typed.
    await panel
      .locator('[data-sample="nodes.lookup"]')
      .getByRole("button", { name: "Insert {{ nodes.lookup.customer.name }}" })
      .click();
    await expect.poll(fieldsText).toContain('"name": "{{ nodes.lookup.customer.name }}"');
    // The preview renders the field with the worker's engine against the run's outputs.
    await expect.poll(() => page.locator('[data-preview="fields"]').textContent()).toContain('{"name":"Ada"}');

    // Published, so that production runs it.
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flowId}/run`, {
      input: { order: 8 },
    });
    expect(await service.runEnded(context, started.run_id)).toBe("success");
    const { run } = await service.api<{ run: { output: unknown } }>(context, "GET", `/api/runs/${started.run_id}`);
    expect(run.output).toEqual({ name: "Ada" });
  });

  it("completes a reference inside {{ }} from the sample, and says what a wrong one is", async () => {
    const { page } = session;
    const editor = page.locator('[data-field="fields"] .cm-content');
    await editor.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type('{ "plan": "{{ nodes.lookup.customer.p');
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "nodes.lookup.customer.plan" });
    await option.waitFor();
    await option.click();
    // The pick closed the template; the editor had closed the quote and the brace as they were typed.
    await expect.poll(fieldsText).toBe('{ "plan": "{{ nodes.lookup.customer.plan }}"}');
    await expect.poll(() => page.locator('[data-preview="fields"]').textContent()).toContain('{"plan":"pro"}');

    // A root the engine does not know is named as the run would name it.
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type('{ "x": "{{ env.secret }}" }');
    await expect
      .poll(() => page.locator('[data-preview="fields"]').textContent())
      .toContain('unknown root "env": use one of input, trigger, nodes, run, item, item_index');
  });
});
