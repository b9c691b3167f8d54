// Versions and accessibility in the editor, in Chromium against the real service: no axe violation
// of any impact with a node selected (at 1280 px, and at 390 px from the node list) nor in
// the diff view; the version picker names each version's author, time and note; Save takes an
// optional note; the diff view says in words which nodes, fields, edges and settings changed.
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./axe.js";
import { openWhenReady, useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

interface VersionItem {
  version: number;
  author: string | null;
  note: string | null;
}

describe("versions and axe in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flowId: string;

  beforeAll(async () => {
    const { service, context } = session;
    // A node of each kind of settings form: plain fields, a URL with headers, code, a condition.
    const nodes = (message: string) => [
      { id: "start", type: "manual", config: {} },
      { id: "say", type: "log", name: "Say it", config: { message } },
      { id: "call", type: "http_request", config: { url: "http://127.0.0.1:9/x", headers: { "x-a": "1" } } },
      { id: "shape", type: "code", config: { code: "return { n: 1 };" } },
      { id: "check", type: "condition", config: { left: "{{ nodes.shape.n }}", operator: "equals", right: 1 } },
    ];
    const edges = [
      { from: "start", to: "say" },
      { from: "say", to: "call" },
      { from: "call", to: "shape" },
      { from: "shape", to: "check" },
    ];
    const created = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Versioned",
      definition: { nodes: nodes("hi"), edges },
    });
    flowId = created.id;
    await service.api(context, "PUT", `/api/flows/${flowId}`, {
      version: 1,
      definition: { priority: 2, nodes: nodes("hello"), edges },
      note: "Say hello instead",
    });
  });

  it("has no axe violation with a node selected", async () => {
    const { page, service } = session;
    await openWhenReady(page, `${service.base}/flows/${flowId}`, '.react-flow__node[data-id="say"]');
    const found: string[] = [];
    for (const id of ["start", "say", "call", "shape", "check"]) {
      await page.locator(`.react-flow__node[data-id="${id}"]`).click();
      await page.locator('input[name="node-name"]').waitFor();
      await page.waitForLoadState("networkidle");
      found.push(...(await axeViolations(page)).map((violation) => `${id} selected: ${violation}`));
    }
    expect(found).toEqual([]);
  });

  it("has no axe violation on a phone with a node's settings open from the node list", async () => {
    const { service } = session;
    const { context, page } = await service.loggedIn({ width: 390, height: 844 });
    try {
      await openWhenReady(page, `${service.base}/flows/${flowId}`, '.react-flow__node[data-id="call"]');
      // The phone's editor is read-only: a node's settings open from the node list.
      await page.getByRole("list", { name: "Nodes" }).locator('li[data-node="call"]').getByRole("button").click();
      await page.locator("#field-url").waitFor();
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists versions with author, time and note, and saves a note with a new version", async () => {
    const { page, service, context } = session;
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    const picker = page.getByLabel("Compare with version");
    const v2 = picker.locator('option[value="2"]');
    await expect.poll(() => v2.textContent()).toMatch(/^v2 \(published\) · browser name · .+ · Say hello instead$/);

    // A changed canvas shows the note field beside Save; the note goes with the new version.
    await page.getByLabel("Filter nodes").fill("debug");
    await page.locator('[data-palette-type="debug"]').press("Enter");
    await page.locator('.react-flow__node[data-id="debug"]').waitFor();
    await page.getByLabel("Version note (optional)").fill("Look at the output");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 3.").waitFor();
    expect(await page.getByLabel("Version note (optional)").count()).toBe(0);
    const versions = await service.api<{ items: VersionItem[] }>(context, "GET", `/api/flows/${flowId}/versions`);
    expect(versions.items.map(({ version, author, note }) => ({ version, author, note }))).toEqual([
      { version: 3, author: "browser name", note: "Look at the output" },
      { version: 2, author: "browser name", note: "Say hello instead" },
      { version: 1, author: "browser name", note: null },
    ]);
  });

  it("tells what changed in words above the line diff, with no axe violation", async () => {
    const { page } = session;
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByLabel("Compare with version").selectOption("1");
    const readable = page.locator(".readable-diff");
    await readable.waitFor();
    expect(await page.locator(".version-facts").textContent()).toMatch(
      /^Version 1 saved by browser name, .+ \(no note\)$/,
    );
    expect(await readable.getByRole("region", { name: "Nodes added" }).locator("li").allTextContents()).toEqual([
      "debug: debug",
    ]);
    expect(await readable.getByRole("region", { name: "Nodes changed" }).textContent()).toContain(
      'Say it (say)config.message: "hi" → "hello"',
    );
    expect(await readable.getByRole("region", { name: "Edges added" }).count()).toBe(0);
    expect(await readable.getByRole("region", { name: "Flow settings changed" }).textContent()).toContain(
      "priority: (none) → 2",
    );
    expect(await readable.getByRole("region", { name: "Nodes removed" }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });
});
