// Flow control set in the editor, in Chromium against the real service: a concurrency limit of 1
// per customer typed in the flow's panel and saved; three runs of one customer then start, the
// first holds its slot (a 30 s delay) and the run page of the third shows it queued, with why and
// its place; the runs list filtered on `queued` shows the two waiting with their reason, and the
// editor's Queue line counts them under their key. The runs are cancelled at the end (a cancelled
// holder hands its slot on); then a debounce typed in the editor is checked as the server checks
// it and saved.
import { describe, expect, it } from "vitest";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SHOWN = { timeout: 30_000, interval: 250 };

describe("flow control in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();

  it("saves a concurrency key typed in the editor; waiting runs show queued with their reason on their page, in the list and in the Queue line; a debounce is checked and saved", async () => {
    const { service, context, page } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "One call per customer",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          { id: "hold", type: "delay", name: "Hold the slot", config: { duration: "30s" } },
        ],
        edges: [{ from: "start", to: "hold" }],
      },
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    await page.getByRole("group", { name: "Flow control" }).waitFor();
    await page.getByLabel("Concurrency limit (runs at once)").fill("1");
    await page.getByLabel("Concurrency key").fill("{{ input.customer }}");
    await page.getByLabel(/^Priority/).fill("2");
    // Published, so that production's runs wait at the gate.
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    const saved = await service.api<{ definition: Record<string, unknown> }>(context, "GET", `/api/flows/${flow.id}`);
    expect(saved.definition).toMatchObject({ concurrency: { limit: 1, key: "{{ input.customer }}" }, priority: 2 });
    expect(saved.definition).not.toHaveProperty("throttle");

    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = await service.api<{ run_id: string; status: string }>(
        context,
        "POST",
        `/api/workflows/${flow.id}/run`,
        { input: { customer: "acme" } },
      );
      // The start answers running, as the interface says, queued or not.
      expect(started.status).toBe("running");
      runIds.push(started.run_id);
    }
    try {
      await page.goto(`${service.base}/runs/${runIds[2]}`);
      const queued = page.getByText(/^Queued:/);
      await expect.poll(() => queued.textContent(), SHOWN).toMatch(/concurrency slot of key acme.*position 2/);
      const third = await service.api<{ run: { status: string; queue: { position: number } } }>(
        context,
        "GET",
        `/api/runs/${runIds[2]}`,
      );
      expect(third.run).toMatchObject({ status: "queued", queue: { position: 2 } });

      // The runs list: the status filter has queued, and each waiting run shows why under its badge,
      // the page's reasons asked in one request (no run's own page read).
      const asked: string[] = [];
      const onRequest = (request: { url(): string }) => {
        const { pathname } = new URL(request.url());
        if (pathname === "/api/runs/queues" || pathname.startsWith("/api/runs/run_")) asked.push(pathname);
      };
      page.on("request", onRequest);
      await page.goto(`${service.base}/runs?flow=${flow.id}`);
      await page.getByLabel("Status filter").selectOption("queued");
      for (const id of runIds.slice(1)) {
        const row = page.locator(`tr[data-run="${id}"]`);
        await row.locator(".badge.status-queued").waitFor(SHOWN);
        const reason = row.locator('[data-mark="queue-reason"]');
        await expect
          .poll(() => reason.textContent(), SHOWN)
          .toMatch(/^waiting for a concurrency slot of key acme \(place [12]\)$/);
      }
      expect(await page.locator(`tr[data-run="${runIds[0]}"]`).count()).toBe(0);
      page.off("request", onRequest);
      expect(asked).toContain("/api/runs/queues");
      expect(asked.filter((path) => path !== "/api/runs/queues")).toEqual([]);

      // The editor's Queue line: two waiting under acme, one running of one.
      await page.goto(`${service.base}/flows/${flow.id}`);
      const line = page.locator('[data-mark="flow-queue"]');
      await expect
        .poll(() => line.textContent(), SHOWN)
        .toMatch(/^Queue: 2 waiting, longest for .*; acme: 2 waiting, 1 of 1 running$/);
    } finally {
      for (const id of runIds) await service.api(context, "POST", `/api/runs/${id}/cancel`, {}).catch(() => undefined);
    }
    for (const id of runIds) expect(await service.runEnded(context, id)).toBe("cancelled");

    // A debounce: a longest wait shorter than the period is refused as the server would, then saved.
    await page.getByLabel(/^Debounce quiet period/).fill("1000");
    await page.getByLabel("Debounce key").fill("{{ input.customer }}");
    await page.getByLabel(/^Debounce longest wait/).fill("500");
    await page.getByText(/^debounce\.max_wait_ms: /).waitFor();
    await page.getByLabel(/^Debounce longest wait/).fill("5000");
    expect(await page.locator('[data-mark="debounce-problem"]').count()).toBe(0);
    // With a debounce set, the box still has one priority field (a second was reported once).
    expect(await page.getByLabel(/^Priority/).count()).toBe(1);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 3: production runs it now.").waitFor();
    const debounced = await service.api<{ definition: Record<string, unknown> }>(
      context,
      "GET",
      `/api/flows/${flow.id}`,
    );
    expect(debounced.definition).toMatchObject({
      concurrency: { limit: 1, key: "{{ input.customer }}" },
      debounce: { period_ms: 1000, key: "{{ input.customer }}", max_wait_ms: 5000 },
    });
    // Opened again with the debounce saved: still one priority field, holding the saved 2.
    await page.reload();
    const box = page.getByRole("group", { name: "Flow control" });
    await box.waitFor();
    expect(await box.getByLabel(/^Debounce quiet period/).inputValue()).toBe("1000");
    expect(await page.getByLabel(/^Priority/).count()).toBe(1);
    expect(await box.getByLabel(/^Priority/).inputValue()).toBe("2");
  });
});
