// Draft and publish as two steps, in Chromium against the real service: an active hook flow saying
// "v1" is changed in the editor and saved (a draft); production calls to the hook keep running
// version 1 while a test event at the test address runs the draft; the editor reopens on the
// draft; Publish makes production run it; "Publish this version" rolls back to version 1 and keeps
// the newer draft.
import { describe, expect, it } from "vitest";
import { useDashboardPage, shownTestRun } from "./dashboard-service.js";

const TIMEOUT = 240_000;

interface FlowRead {
  id: string;
  version: number;
  draft_version: number | null;
  hook: { path: string };
}

describe("drafts and publishing in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage({ timeout: TIMEOUT });
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);

  /** Replaces what the set node says, on the canvas. */
  async function say(text: string) {
    const { page } = session;
    await canvasNode("say").click();
    const content = page.locator('.code-field[data-field="fields"] .cm-content');
    await content.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(`{ "said": "${text}" }`);
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
  }

  /** Calls the production hook: what the run it started said, and the version it ran. */
  async function production(hookPath: string) {
    const { service, context } = session;
    const accepted = await service.api<{ run_id: string }>(context, "POST", hookPath, {});
    expect(await service.runEnded(context, accepted.run_id)).toBe("success");
    const { run } = await service.api<{ run: { output: { said: string }; version: number; test: boolean } }>(
      context,
      "GET",
      `/api/runs/${accepted.run_id}`,
    );
    expect(run.test).toBe(false);
    return { said: run.output.said, version: run.version };
  }

  const readFlow = (id: string) => session.service.api<FlowRead>(session.context, "GET", `/api/flows/${id}`);
  const bar = () => session.page.locator(".editor-bar .muted").first().textContent();

  /** Listens at the test address, calls it, and runs Test flow: what the test run said. */
  async function testThroughTestAddress(): Promise<unknown> {
    const { service, context, page } = session;
    await page.getByRole("button", { name: "Listen for a test event" }).click();
    const testUrl = (await page.locator("[data-test-url]").textContent()) ?? "";
    expect(testUrl).toMatch(/\/api\/hooks\/test\//);
    const captured = await fetch(testUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ from: "test address" }),
    });
    expect(captured.status).toBe(200);
    await page.getByText("Test event captured").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Test flow" }).click();
    const { runId } = await shownTestRun(page);
    const { run } = await service.api<{ run: { test: boolean; output: unknown } }>(
      context,
      "GET",
      `/api/runs/${runId}`,
    );
    expect(run.test).toBe(true);
    return run.output;
  }

  it("saves a draft production does not run, tests it at the test address, publishes it and rolls back", async () => {
    const { service, context, page } = session;
    const flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Published hook",
      definition: {
        nodes: [
          { id: "hook", type: "webhook", config: {} },
          { id: "say", type: "set", config: { fields: { said: "v1" } } },
        ],
        edges: [{ from: "hook", to: "say" }],
      },
    });
    expect(await production(flow.hook.path)).toEqual({ said: "v1", version: 1 });

    // Saved in the editor: a draft, which production does not run.
    await page.goto(`${service.base}/flows/${flow.id}`);
    expect(await bar()).toBe("Published v1");
    expect(await page.getByRole("button", { name: "Publish", exact: true }).isDisabled()).toBe(true);
    await say("v2");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 2. Not live yet: production runs version 1.").waitFor();
    expect(await bar()).toBe("Published v1 · Draft v2");
    expect(await readFlow(flow.id)).toMatchObject({ version: 1, draft_version: 2 });
    expect(await production(flow.hook.path)).toEqual({ said: "v1", version: 1 });

    // The test address runs the draft; production still the published version.
    expect(await testThroughTestAddress()).toEqual({ said: "v2" });
    expect(await production(flow.hook.path)).toEqual({ said: "v1", version: 1 });

    // Reopened, the editor shows the draft, saved.
    await page.reload();
    await canvasNode("say").click();
    await expect.poll(() => page.locator('.code-field[data-field="fields"] .cm-content').innerText()).toContain("v2");
    expect(await bar()).toBe("Published v1 · Draft v2");
    expect(await page.locator(".badge.unsaved").count()).toBe(0);

    // Published: production runs version 2.
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    expect(await bar()).toBe("Published v2");
    expect(await readFlow(flow.id)).toMatchObject({ version: 2, draft_version: null });
    expect(await production(flow.hook.path)).toEqual({ said: "v2", version: 2 });

    // A new draft (3), then version 1 published again: a rollback that keeps the draft.
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await say("v3");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 3.").waitFor();
    const picker = page.getByLabel("Compare with version");
    await expect
      .poll(() => picker.locator("option").allTextContents())
      .toContainEqual(expect.stringMatching(/^v3 \(draft\)/));
    expect(await picker.locator("option").allTextContents()).toContainEqual(expect.stringMatching(/^v2 \(published\)/));
    // The published version offers no "Publish this version"; an older one does.
    await picker.selectOption("2");
    await page.getByRole("dialog", { name: "v2 compared with the canvas" }).waitFor();
    expect(await page.getByText("Version 2 (published: production runs it) saved by").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Publish this version" }).count()).toBe(0);
    await picker.selectOption("1");
    await page.getByRole("dialog", { name: "v1 compared with the canvas" }).waitFor();
    const questions: string[] = [];
    page.once("dialog", (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Publish this version" }).click();
    await page
      .getByText("Published version 1: production runs it now. The draft (version 3) stays unpublished.")
      .waitFor();
    expect(questions).toEqual([
      "Publish version 1 in place of version 2? Production runs version 1 from now on. The draft (version 3) stays as it is.",
    ]);
    expect(await bar()).toBe("Published v1 · Draft v3");
    expect(await readFlow(flow.id)).toMatchObject({ version: 1, draft_version: 3 });
    expect(await production(flow.hook.path)).toEqual({ said: "v1", version: 1 });

    // The flows list marks the draft.
    await page.getByRole("link", { name: "← Flows" }).click();
    const badge = page.locator("tr", { hasText: "Published hook" }).locator(".badge.draft");
    await badge.waitFor();
    expect(await badge.getAttribute("title")).toBe("Draft v3 not published");
  });

  it("publishes unsaved changes in one step, and Activate sends the status alone", async () => {
    const { service, context, page } = session;
    const flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Published at once",
      definition: {
        nodes: [
          { id: "hook", type: "webhook", config: {} },
          { id: "say", type: "set", config: { fields: { said: "v1" } } },
        ],
        edges: [{ from: "hook", to: "say" }],
      },
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    await say("v2");
    await page.getByRole("button", { name: "Deactivate" }).click();
    await page.getByText("Deactivated.").waitFor();
    // The status changed; the canvas stayed unsaved and made no version.
    expect(await readFlow(flow.id)).toMatchObject({ version: 1, draft_version: null, status: "inactive" });
    expect(await page.locator(".badge.unsaved").count()).toBe(1);
    await page.getByRole("button", { name: "Activate" }).click();
    await page.getByText("Activated.").waitFor();

    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    expect(await page.locator(".badge.unsaved").count()).toBe(0);
    expect(await readFlow(flow.id)).toMatchObject({ version: 2, draft_version: null, status: "active" });
    expect(await production(flow.hook.path)).toEqual({ said: "v2", version: 2 });
  });
  it("publishes nothing when another version went live meanwhile, and says which", async () => {
    const { service, context, page } = session;
    const saying = (said: string) => ({
      nodes: [
        { id: "hook", type: "webhook", config: {} },
        { id: "say", type: "set", config: { fields: { said } } },
      ],
      edges: [{ from: "hook", to: "say" }],
    });
    const flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Published elsewhere",
      definition: saying("v1"),
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    await say("v2");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 2.").waitFor();
    // Someone else publishes a change through the API (version 3, which supersedes the draft).
    await service.api(context, "PUT", `/api/flows/${flow.id}`, { version: 1, definition: saying("elsewhere") });

    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page
      .getByText(
        "Another version was published meanwhile (production runs version 3): nothing was published. Look at it, then publish again.",
      )
      .waitFor();
    // The editor read the flow again; production runs what was published elsewhere.
    await expect.poll(bar).toBe("Published v3");
    expect(await readFlow(flow.id)).toMatchObject({ version: 3, draft_version: null });
    expect(await production(flow.hook.path)).toEqual({ said: "elsewhere", version: 3 });
  });
});
