// The runs list at volume, in Chromium against the real service: filters and the id search live in
// the page's address (a shared link opens the same view), and several runs are retried or cancelled
// at once, each through its own endpoint; on a phone, select-all and the bar of the selected runs stay at hand.
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SETTLED = { timeout: 20_000 };

describe("the runs list", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let billing: string;
  let approvals: string;
  const failed: string[] = [];
  const waiting: string[] = [];

  const create = async (name: string, nodes: object[]) => {
    const edges = nodes.slice(1).map((node, index) => ({
      from: (nodes[index] as { id: string }).id,
      to: (node as { id: string }).id,
    }));
    const { service, context } = session;
    return (await service.api<{ id: string }>(context, "POST", "/api/flows", { name, definition: { nodes, edges } }))
      .id;
  };
  const start = async (flowId: string, input: object) =>
    (await session.service.api<{ run_id: string }>(session.context, "POST", `/api/workflows/${flowId}/run`, { input }))
      .run_id;

  beforeAll(async () => {
    const { service, context } = session;
    billing = await create("Billing", [
      { id: "start", type: "manual", config: {} },
      { id: "charge", type: "code", config: { code: "if (input.fail) throw new Error('card declined'); return {};" } },
    ]);
    approvals = await create("Approvals", [
      { id: "start", type: "manual", config: {} },
      { id: "ask", type: "wait", config: { mode: "approval" } },
    ]);
    for (let i = 0; i < 2; i++) failed.push(await start(billing, { fail: true }));
    const succeeded = await start(billing, {});
    for (const id of [...failed, succeeded]) await service.runEnded(context, id);
    for (let i = 0; i < 2; i++) waiting.push(await start(approvals, {}));
  }, TIMEOUT);

  const shownRuns = () =>
    session.page
      .locator("table.list:not(.failure-groups) tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-run")));
  const query = () => new URL(session.page.url()).searchParams;

  it("opens the view a shared address names, and keeps each filter change in the address", async () => {
    const { service, page } = session;
    await page.goto(`${service.base}/runs?flow=${billing}&status=failed`);
    await expect.poll(shownRuns, SETTLED).toEqual([...failed].reverse());
    expect(await page.getByLabel("Flow filter").inputValue()).toBe(billing);
    expect(await page.getByLabel("Status filter").inputValue()).toBe("failed");

    await page.getByLabel("Status filter").selectOption("");
    await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBe(3);
    expect(query().get("status")).toBeNull();
    await page.getByLabel("Trigger filter").selectOption("api");
    expect(query().get("trigger")).toBe("api");
    await page.getByLabel("Time filter").selectOption("1h");
    expect(Date.parse(query().get("after")!)).toBeGreaterThan(Date.now() - 3_700_000);

    // The id search: a run's id without its run_, cut short.
    await page.getByLabel("Run id").fill(failed[0]!.slice(4, 16));
    await expect.poll(shownRuns, SETTLED).toEqual([failed[0]]);
    expect(query().get("id")).toBe(failed[0]!.slice(4, 16));
    // Reloading the address shows the same view.
    await page.reload();
    await expect.poll(shownRuns, SETTLED).toEqual([failed[0]]);
    expect(await page.getByLabel("Run id").inputValue()).toBe(failed[0]!.slice(4, 16));

    await page.getByRole("button", { name: "Clear filters" }).click();
    expect(page.url()).toBe(`${service.base}/runs`);
    await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBe(5);
  });

  it("says an id filter that cannot be a run id is refused (400), instead of listing every run", async () => {
    const { service, context, page } = session;
    const answer = await context.request.get(`${service.base}/api/runs?id=hello`);
    expect(answer.status()).toBe(400);
    expect(await answer.json()).toMatchObject({ code: "validation_failed" });

    await page.goto(`${service.base}/runs?id=hello`);
    await expect.poll(() => page.getByRole("alert").textContent(), SETTLED).toContain("must be a run id");
    expect(await shownRuns()).toEqual([]);
    expect(await page.getByText("No runs match").count()).toBe(0);
    expect(await page.getByLabel("Run id").getAttribute("aria-invalid")).toBe("true");
    // Mended, the list comes back.
    await page.getByLabel("Run id").fill(failed[0]!);
    await expect.poll(shownRuns, SETTLED).toEqual([failed[0]]);
    expect(await page.getByRole("alert").count()).toBe(0);
  });

  it("keeps the page shown in the address, so a reload stays on it", async () => {
    const { service, context, page } = session;
    const first = await service.api<{ items: Array<{ id: string }>; next_cursor: string }>(
      context,
      "GET",
      `/api/runs?flow_id=${billing}&limit=1`,
    );
    await page.goto(`${service.base}/runs?flow=${billing}&page=2&cursors=${first.next_cursor}`);
    await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBe(2);
    expect(await shownRuns()).not.toContain(first.items[0]!.id);
    await page.reload();
    await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBe(2);
    await page.getByRole("button", { name: "Newer" }).click();
    await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBe(3);
    expect(query().get("page")).toBeNull();
    expect(query().get("cursors")).toBeNull();
  });

  it("retries the selected failed runs", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/runs?flow=${billing}&status=failed`);
    await expect.poll(shownRuns, SETTLED).toEqual([...failed].reverse());
    await page.getByLabel("Select every run on this page").check();
    await page.getByRole("button", { name: "Retry failed (2)" }).click();
    await page.getByText("Retried 2 runs.").waitFor(SETTLED);
    const retries = await service.api<{ items: Array<{ id: string }> }>(
      context,
      "GET",
      `/api/runs?flow_id=${billing}&trigger=retry`,
    );
    expect(retries.items).toHaveLength(2);

    // The list marks both sides: each retried run, and each retry with the run it retries (linked); and says why each failed.
    for (const retry of retries.items) await service.runEnded(context, retry.id);
    await page.goto(`${service.base}/runs?flow=${billing}`);
    const row = (id: string) => page.locator(`tr[data-run="${id}"]`);
    for (const id of failed) {
      await expect.poll(() => row(id).locator('[data-mark="reruns"]').textContent(), SETTLED).toBe("Rerun once");
      expect(await row(id).locator("td.run-error-line").textContent()).toMatch(/^charge: .*card declined/);
    }
    const retried = await Promise.all(
      retries.items.map((retry) => row(retry.id).locator('[data-mark="rerun-of"]').textContent()),
    );
    expect(retried.sort()).toEqual(failed.map((id) => `Retry of ${id}`).sort());
    await row(retries.items[0]!.id).locator('[data-mark="rerun-of"] a').click();
    await page.waitForURL(/\/runs\/run_/);
    expect(failed).toContain(new URL(page.url()).pathname.split("/").at(-1));
  });

  it("cancels the selected running runs after asking", async () => {
    const { service, context, page } = session;
    await page.goto(`${service.base}/runs?flow=${approvals}&status=running`);
    await expect.poll(() => shownRuns().then((ids) => ids.sort()), SETTLED).toEqual([...waiting].sort());
    for (const id of waiting) await page.getByLabel(`Select ${id}`).check();
    await page.getByRole("button", { name: "Cancel running (2)" }).click();
    await page.getByRole("button", { name: "Cancel them" }).click();
    await page.getByText("Cancelled 2 runs.").waitFor(SETTLED);
    for (const id of waiting) expect(await service.runEnded(context, id)).toBe("cancelled");
  });

  it("keeps select-all and the bar of the selected runs at hand on a 390 px phone", async () => {
    const { service, page } = session;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${service.base}/runs`);
      await expect.poll(() => shownRuns().then((ids) => ids.length), SETTLED).toBeGreaterThanOrEqual(5);
      const shown = await shownRuns();
      // The header is folded into cards at this width: select-all is the part of it that stays.
      const selectAll = page.getByLabel("Select every run on this page");
      expect(await selectAll.isVisible()).toBe(true);
      await selectAll.check();
      for (const id of shown) expect(await page.getByLabel(`Select ${id}`).isChecked()).toBe(true);
      const bar = page.getByRole("group", { name: "Selected runs" });
      expect(await bar.locator("strong").textContent()).toBe(`${shown.length} selected`);

      // Scrolled to the bottom of the list, the bar is still on the screen.
      expect(await page.evaluate("document.documentElement.scrollHeight > window.innerHeight")).toBe(true);
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
      await expect.poll(() => page.evaluate("window.scrollY"), SETTLED).toBeGreaterThan(0);
      const box = await bar.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(844);
      await bar.getByRole("button", { name: "Clear selection" }).click();
      expect(await selectAll.isChecked()).toBe(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
