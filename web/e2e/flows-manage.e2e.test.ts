// Managing flows from the flows list, in Chromium against the real service: a flow is renamed,
// duplicated, archived, unarchived and deleted through its row's actions (the delete after a dialog
// saying what becomes of its runs), its run still listed after; tags filter the list and the search
// is answered by the server.
import { beforeAll, describe, expect, it } from "vitest";
import { openWhenReady, useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 20_000 };

describe("managing flows in the flows list", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flowId: string;
  let runId: string;

  beforeAll(async () => {
    const { service, context } = session;
    const definition = {
      nodes: [
        { id: "start", type: "manual", config: {} },
        { id: "say", type: "log", config: { message: "hi" } },
      ],
      edges: [{ from: "start", to: "say" }],
    };
    flowId = (
      await service.api<{ id: string }>(context, "POST", "/api/flows", {
        name: "Nightly report",
        tags: ["finance"],
        definition,
      })
    ).id;
    await service.api(context, "POST", "/api/flows", { name: "Untagged helper", definition });
    runId = (await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flowId}/run`, { input: {} }))
      .run_id;
    await service.runEnded(context, runId);
  }, TIMEOUT);

  type Flow = { id: string; name: string; status: string };
  const flows = async () =>
    (await session.service.api<{ items: Flow[] }>(session.context, "GET", "/api/flows?limit=50")).items;
  const shownNames = () =>
    session.page
      .locator("table.list tbody tr td:first-child > a")
      .evaluateAll((links) => links.map((a) => a.textContent));
  /** Opens the actions of the row of the flow named `name`: its buttons. */
  const openActions = async (name: string) => {
    const row = session.page.locator("tr", { has: session.page.getByRole("link", { name, exact: true }) });
    await row.locator("summary").click();
    return row.locator('div[role="group"]');
  };

  it("searches on the server and filters by a tag", async () => {
    const { service, page } = session;
    await openWhenReady(page, `${service.base}/flows`, `a[href="/flows/${flowId}"]`);
    const asked: string[] = [];
    page.on("request", (req) => {
      if (req.url().includes("/api/flows?")) asked.push(req.url());
    });
    await page.getByLabel("Search flows").fill("nightly");
    await expect.poll(shownNames, SETTLED).toEqual(["Nightly report"]);
    expect(asked.some((url) => new URL(url).searchParams.get("q") === "nightly")).toBe(true);
    await page.getByLabel("Search flows").fill("");
    await expect.poll(async () => (await shownNames()).length, SETTLED).toBe(2);
    await page.getByRole("button", { name: "Show flows tagged finance" }).click();
    await expect.poll(shownNames, SETTLED).toEqual(["Nightly report"]);
    await page.getByRole("button", { name: "Stop filtering by tag finance" }).click();
    await expect.poll(async () => (await shownNames()).length, SETTLED).toBe(2);
  });

  it("renames, duplicates, archives, unarchives and deletes a flow", async () => {
    const { page } = session;
    // Rename.
    await (await openActions("Nightly report")).getByRole("button", { name: "Rename" }).click();
    const renameDialog = page.getByRole("dialog", { name: "Rename Nightly report" });
    await renameDialog.getByLabel("New name").fill("Nightly finance report");
    await renameDialog.getByRole("button", { name: "Rename" }).click();
    await expect
      .poll(() => page.getByRole("status").textContent(), SETTLED)
      .toContain("Renamed to Nightly finance report");
    expect((await flows()).find((f) => f.id === flowId)?.name).toBe("Nightly finance report");

    // Duplicate: a new inactive copy.
    await (await openActions("Nightly finance report")).getByRole("button", { name: "Duplicate" }).click();
    await expect
      .poll(() => page.getByRole("status").textContent(), SETTLED)
      .toContain("Duplicated as Nightly finance report (copy)");
    const copy = (await flows()).find((f) => f.name === "Nightly finance report (copy)");
    expect(copy).toMatchObject({ status: "inactive" });
    await expect.poll(shownNames, SETTLED).toContain("Nightly finance report (copy)");

    // Archive, then unarchive (back as inactive).
    await (await openActions("Nightly finance report")).getByRole("button", { name: "Archive" }).click();
    await expect.poll(async () => (await flows()).find((f) => f.id === flowId)?.status, SETTLED).toBe("archived");
    await expect
      .poll(() => page.locator(`tr[data-flow="${flowId}"] td[data-label="Status"] .badge`).textContent(), SETTLED)
      .toBe("archived");
    await (await openActions("Nightly finance report")).getByRole("button", { name: "Unarchive" }).click();
    await expect.poll(async () => (await flows()).find((f) => f.id === flowId)?.status, SETTLED).toBe("inactive");

    // Delete, after a dialog that says what becomes of the runs; the run stays readable.
    await (await openActions("Nightly finance report")).getByRole("button", { name: "Delete" }).click();
    const deleteDialog = page.getByRole("dialog", { name: "Delete Nightly finance report?" });
    expect(await deleteDialog.textContent()).toContain("its past runs stay listed under Runs");
    await deleteDialog.getByRole("button", { name: "Delete flow" }).click();
    await expect.poll(async () => (await flows()).some((f) => f.id === flowId), SETTLED).toBe(false);
    await expect.poll(shownNames, SETTLED).not.toContain("Nightly finance report");
    const run = await session.service.api<{ run: { id: string; flow_name: string } }>(
      session.context,
      "GET",
      `/api/runs/${runId}`,
    );
    expect(run.run).toMatchObject({ id: runId, flow_name: "Nightly report" });
  });
});
