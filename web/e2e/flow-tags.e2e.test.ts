// Editing a flow's tags from the flows list, in Chromium against the real service: two tags added
// from the keyboard (a tag of another flow suggested), one removed, saved without making a flow
// version; after a reload the list shows the kept tag and filters by it. A tag the server refuses
// shows its message; a stale version (the flow changed meanwhile) reloads the list and says so. The
// editor's bar opens the same dialog: its save sends only the published version and the tags, the
// draft staying as it is, and a version published meanwhile makes the editor read the flow again.
import { beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { openWhenReady, useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 20_000 };

const definition = (message: string) => ({
  nodes: [
    { id: "start", type: "manual", config: {} },
    { id: "say", type: "log", config: { message } },
  ],
  edges: [{ from: "start", to: "say" }],
});

describe("editing a flow's tags in the flows list", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flowId: string;

  beforeAll(async () => {
    const { service, context } = session;
    flowId = (
      await service.api<{ id: string }>(context, "POST", "/api/flows", {
        name: "Invoice sync",
        definition: definition("hi"),
      })
    ).id;
    await service.api(context, "POST", "/api/flows", {
      name: "Ops digest",
      tags: ["ops"],
      definition: definition("ops"),
    });
  }, TIMEOUT);

  type Flow = { version: number; tags: string[] };
  const flow = () => session.service.api<Flow>(session.context, "GET", `/api/flows/${flowId}`);
  const shownNames = () =>
    session.page
      .locator("table.list tbody tr td:first-child > a")
      .evaluateAll((links) => links.map((a) => a.textContent));
  const focusedLabel = () =>
    session.page.evaluate<string | null>("document.activeElement?.closest('label')?.firstChild?.textContent ?? null");
  const row = () => session.page.locator(`tr[data-flow="${flowId}"]`);
  /** Opens the row's Tags… dialog. */
  const openTags = async () => {
    await row().locator("summary").click();
    await row().getByRole("button", { name: "Tags…" }).click();
    return session.page.getByRole("dialog", { name: "Tags of Invoice sync" });
  };

  it("adds two tags, removes one and keeps the flow's version", async () => {
    const { service, page } = session;
    await openWhenReady(page, `${service.base}/flows`, `a[href="/flows/${flowId}"]`);
    const dialog = await openTags();
    // The dialog opens on its input; the other flow's tag is suggested.
    await expect.poll(() => focusedLabel(), SETTLED).toBe("Add a tag");
    const suggested = await dialog
      .locator("datalist option")
      .evaluateAll((options) => options.map((o) => o.getAttribute("value")));
    expect(suggested).toEqual(["ops"]);
    await page.keyboard.type("Billing");
    await page.keyboard.press("Enter");
    await page.keyboard.type("monthly");
    await page.keyboard.press("Enter");
    const tagList = dialog.getByRole("list", { name: "Tags of Invoice sync" });
    expect(await tagList.getByRole("listitem").allTextContents()).toEqual(["billing×", "monthly×"]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Remove one from the keyboard: the focus goes back to the input.
    await dialog.getByRole("button", { name: "Remove tag monthly" }).focus();
    await page.keyboard.press("Enter");
    expect(await tagList.getByRole("listitem").allTextContents()).toEqual(["billing×"]);
    await expect.poll(() => focusedLabel(), SETTLED).toBe("Add a tag");
    await dialog.getByRole("button", { name: "Save tags" }).click();
    await expect
      .poll(() => page.getByRole("status").textContent(), SETTLED)
      .toContain("Tags of Invoice sync: billing.");
    expect(await dialog.isVisible()).toBe(false);

    // After a reload: the kept tag shows and filters; the API has it, and no version was made.
    await openWhenReady(page, `${service.base}/flows`, `a[href="/flows/${flowId}"]`);
    expect(await row().locator("button.badge.tag").allTextContents()).toEqual(["billing"]);
    await row().getByRole("button", { name: "Show flows tagged billing" }).click();
    await expect.poll(shownNames, SETTLED).toEqual(["Invoice sync"]);
    expect(await flow()).toMatchObject({ version: 1, tags: ["billing"] });
    await page.getByRole("button", { name: "Stop filtering by tag billing" }).click();
    await expect.poll(async () => (await shownNames()).length, SETTLED).toBe(2);
  });

  it("shows the server's message for a tag it refuses", async () => {
    const dialog = await openTags();
    await dialog.getByLabel("Add a tag").fill("x".repeat(41));
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await dialog.getByRole("button", { name: "Save tags" }).click();
    const alert = dialog.getByRole("alert");
    await expect.poll(() => alert.textContent(), SETTLED).toMatch(/^Invalid .*tags\.1: .*40/);
    // Still open with the edit kept; nothing saved.
    expect(await dialog.getByRole("button", { name: `Remove tag ${"x".repeat(41)}` }).isVisible()).toBe(true);
    expect((await flow()).tags).toEqual(["billing"]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await dialog.isVisible()).toBe(false);
    // Cancelled: the row and the flow keep their tag.
    expect(await row().locator("button.badge.tag").allTextContents()).toEqual(["billing"]);
    expect((await flow()).tags).toEqual(["billing"]);
  });

  it("reloads and says so when the flow changed since the list was read", async () => {
    const { service, context, page } = session;
    const dialog = await openTags();
    // Meanwhile, a new definition is published elsewhere: version 2.
    await service.api(context, "PUT", `/api/flows/${flowId}`, { version: 1, definition: definition("changed") });
    await dialog.getByLabel("Add a tag").fill("stale");
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Save tags" }).click();
    await expect
      .poll(() => page.getByRole("status").textContent(), SETTLED)
      .toContain("Invoice sync was changed elsewhere (This update edits version 1; the flow is at version 2)");
    await expect.poll(() => row().locator('td[data-label="Version"]').textContent(), SETTLED).toBe("v2");
    expect(await flow()).toMatchObject({ version: 2, tags: ["billing"] });

    // Edited again on the reloaded row, the tags save, still at version 2.
    const again = await openTags();
    await again.getByLabel("Add a tag").fill("stale");
    await page.keyboard.press("Enter");
    await again.getByRole("button", { name: "Save tags" }).click();
    await expect
      .poll(() => page.getByRole("status").textContent(), SETTLED)
      .toContain("Tags of Invoice sync: billing, stale.");
    expect(await flow()).toMatchObject({ version: 2, tags: ["billing", "stale"] });
  });

  it("edits the tags from the editor's bar, sending only the published version and the tags", async () => {
    const { service, context, page } = session;
    const edited = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Editor tagged",
      definition: definition("v1"),
    });
    // A draft (version 2) waits beside the published version 1.
    await service.api(context, "PUT", `/api/flows/${edited.id}`, {
      version: 1,
      publish: false,
      definition: definition("draft"),
    });
    const read = () => service.api<Flow & { draft_version: number | null }>(context, "GET", `/api/flows/${edited.id}`);
    const sent: unknown[] = [];
    page.on("request", (request) => {
      if (request.method() === "PUT" && request.url().endsWith(`/api/flows/${edited.id}`))
        sent.push(request.postDataJSON());
    });
    await openWhenReady(page, `${service.base}/flows/${edited.id}`, '.react-flow__node[data-id="say"]');
    const bar = page.locator(".editor-bar");
    const tagsButton = bar.getByRole("button", { name: /^Tags/ });
    expect(await tagsButton.textContent()).toBe("Tags");

    await tagsButton.click();
    const dialog = page.getByRole("dialog", { name: "Tags of Editor tagged" });
    // The tags of the other flows are suggested.
    await expect
      .poll(() => dialog.locator("datalist option").evaluateAll((o) => o.map((x) => x.getAttribute("value"))))
      .toEqual(["billing", "ops", "stale"]);
    await page.keyboard.type("Reports");
    await page.keyboard.press("Enter");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Save tags" }).click();
    await expect.poll(() => page.locator(".notice").textContent(), SETTLED).toBe("Tags of Editor tagged: reports.");
    expect(await dialog.isVisible()).toBe(false);
    expect(await tagsButton.textContent()).toBe("Tags reports");

    // Only the published version and the tags were sent; the draft and the canvas are as they were.
    expect(sent).toEqual([{ version: 1, tags: ["reports"] }]);
    expect(await read()).toMatchObject({ version: 1, draft_version: 2, tags: ["reports"] });
    expect(await bar.locator(".muted").first().textContent()).toBe("Published v1 · Draft v2");
    expect(await page.locator(".badge.unsaved").count()).toBe(0);

    // Version 2 published elsewhere meanwhile: the save is refused, and the editor reads the flow again.
    await service.api(context, "POST", `/api/flows/${edited.id}/publish`, { version: 2 });
    await tagsButton.click();
    await dialog.getByLabel("Add a tag").fill("monthly");
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Save tags" }).click();
    await expect
      .poll(() => page.locator(".notice").textContent(), SETTLED)
      .toBe(
        "Editor tagged was changed elsewhere (This update edits version 1; the flow is at version 2); it is read again: its tags were not saved, edit them again.",
      );
    await expect.poll(() => bar.locator(".muted").first().textContent(), SETTLED).toBe("Published v2");
    await tagsButton.click();
    await dialog.getByLabel("Add a tag").fill("monthly");
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Save tags" }).click();
    await expect
      .poll(() => page.locator(".notice").textContent(), SETTLED)
      .toBe("Tags of Editor tagged: reports, monthly.");
    expect(await read()).toMatchObject({ version: 2, draft_version: null, tags: ["reports", "monthly"] });
  });
});
