// A run's page in Chromium against the real service: its nodes in the order they run, by name, with
// those not started listed as pending; each node's state on the canvas; the run's log and each
// node's; a cancelled run that reads as one and runs again with what finished carried over; a
// failure its node handled (on_error), on the run's page and in the editor.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;
/** How long a poll waits for the run to get somewhere (expect.poll's own default is 1 s). */
const SETTLED = { timeout: 20_000 };

describe("a run's page", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let context: BrowserContext;
  let page: Page;
  let flowId: string;
  let runId: string;

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.writeHead(204).end());
    ({ context, page } = await service.loggedIn({ width: 1280, height: 900 }));
    // Defined out of order on purpose: the page lists the nodes in the order they run.
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Nightly report",
      definition: {
        nodes: [
          { id: "send", type: "set", name: "Send the report", config: { fields: { sent: true } } },
          { id: "start", type: "manual", name: "Start here", config: {} },
          {
            id: "compute",
            type: "code",
            name: "Compute totals",
            config: { code: "console.log('summing', input.rows.length, 'rows'); return { total: 42 };" },
          },
          { id: "note", type: "log", config: { message: "totals ready", level: "warn" } },
          { id: "wait", type: "delay", name: "Wait an hour", config: { duration: "1h" } },
        ],
        edges: [
          { from: "start", to: "compute" },
          { from: "compute", to: "note" },
          { from: "note", to: "wait" },
          { from: "wait", to: "send" },
        ],
      },
    });
    flowId = flow.id;
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await service?.stop();
  }, TIMEOUT);

  function screenshotOnFailure(test: TestContext) {
    test.onTestFailed(async () => {
      await service.screenshot(page, test.task.name);
    });
  }

  const stepIds = () =>
    page.locator("tr[data-step]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-step")));
  const stepState = (id: string) => page.locator(`tr[data-step="${id}"] td[data-label="Status"] .badge`).textContent();

  it("lists the nodes by name in the order they run, those not started as pending, each on the canvas", async (test) => {
    screenshotOnFailure(test);
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flowId}/run`, {
      input: { rows: [1, 2, 3] },
    });
    runId = started.run_id;
    await page.goto(`${service.base}/runs/${runId}`);
    await expect.poll(() => stepState("wait"), SETTLED).toBe("running");
    // A quick node's row is written in a batch with the next: it is there once the run waits.
    await expect.poll(() => stepState("note"), SETTLED).toBe("success");

    expect(await stepIds()).toEqual(["start", "compute", "note", "wait", "send"]);
    expect(await page.locator('tr[data-step="compute"] td').first().textContent()).toContain("Compute totals");
    // A node without a name goes by its id.
    expect(await page.locator('tr[data-step="note"] td').first().textContent()).toContain("note");
    expect(await stepState("compute")).toBe("success");
    expect(await stepState("send")).toBe("pending");

    // The canvas: state, duration and a peek at the output of each node.
    const compute = page.locator('[data-run-node="compute"]');
    await compute.waitFor();
    expect(await compute.locator(".badge").textContent()).toBe("success");
    expect(await compute.locator(".run-node-peek").textContent()).toBe('{"total":42}');
    expect(await page.locator('[data-run-node="send"] .badge').textContent()).toBe("pending");
    expect(await page.locator('[data-run-node="wait"] .badge').textContent()).toBe("running");
    // Edges end in arrowheads.
    expect(await page.locator(".run-canvas .react-flow__edge path[marker-end]").count()).toBe(4);
  });

  it("shows the run's log, by node and level, and each node's own log", async (test) => {
    screenshotOnFailure(test);
    const runLog = page.locator('[data-logs="run"]');
    await expect
      .poll(() => runLog.locator(".log-message").allTextContents(), SETTLED)
      .toEqual(["summing 3 rows", "totals ready"]);
    expect(await runLog.locator(".log-node").allTextContents()).toEqual(["Compute totals", "note"]);

    await runLog.getByLabel("Log of node").selectOption({ label: "note" });
    await expect.poll(() => runLog.locator(".log-message").allTextContents(), SETTLED).toEqual(["totals ready"]);
    await runLog.getByLabel("Log of node").selectOption("");
    await runLog.getByLabel("Least log level").selectOption("warn");
    await expect.poll(() => runLog.locator(".log-message").allTextContents(), SETTLED).toEqual(["totals ready"]);

    // A click on the node on the canvas opens its row, with its own log.
    await page.locator('[data-run-node="compute"]').click();
    const own = page.locator('[data-logs="compute"]');
    await own.waitFor();
    await expect.poll(() => own.locator(".log-message").allTextContents(), SETTLED).toEqual(["summing 3 rows"]);
  });

  it("reads a cancelled run as cancelled and runs it again, carrying over what finished", async (test) => {
    screenshotOnFailure(test);
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.locator("h1 .badge.status-cancelled").waitFor();
    expect(await page.locator(".run-cancelled").textContent()).toBe("The run was cancelled");
    expect(await page.getByText("The run failed").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Retry from the failed node" }).count()).toBe(0);
    // The node the run was waiting in reads as cancelled (not failed); the one after never ran.
    await expect.poll(() => stepState("wait"), SETTLED).toBe("cancelled");
    // The nodes after it are marked skipped as the run ends, which the page may show a moment later.
    await expect.poll(() => stepState("send"), SETTLED).toBe("skipped");

    await page.getByRole("button", { name: "Run again" }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(runId));
    const again = new URL(page.url()).pathname.split("/").at(-1)!;
    await expect.poll(() => stepState("wait"), SETTLED).toBe("running");
    // What finished before the cancel is carried over, in graph order, named as such.
    expect(await stepIds()).toEqual(["start", "compute", "note", "wait", "send"]);
    for (const id of ["start", "compute", "note"]) {
      expect(await stepState(id)).toBe("carried over");
      expect(await page.locator(`tr[data-step="${id}"] .carried-over`).textContent()).toBe(` from run ${runId}`);
      expect(await page.locator(`tr[data-step="${id}"] td[data-label="Duration"]`).textContent()).toBe("—");
    }
    expect(await page.locator('[data-run-node="compute"] .badge').textContent()).toBe("carried over");
    // Its log is the one it wrote in the run it ran in.
    await page.locator('tr[data-step="compute"]').getByRole("button").click();
    const log = page.locator('[data-logs="compute"]');
    await expect.poll(() => log.locator(".log-message").allTextContents(), SETTLED).toEqual(["summing 3 rows"]);
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.locator("h1 .badge.status-cancelled").waitFor();
    expect(await service.runEnded(context, again)).toBe("cancelled");
  });

  it("shows a failure its node handled (on_error branch): the run succeeds, the error edge drawn apart", async (test) => {
    screenshotOnFailure(test);
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Handled failure",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          { id: "shape", type: "transform", config: { expression: '$error("no shape")' }, on_error: "branch" },
          { id: "use", type: "set", config: { fields: { ok: true } } },
          { id: "recover", type: "set", config: { fields: { why: "{{ input.error.message }}" } } },
        ],
        edges: [
          { from: "start", to: "shape" },
          { from: "shape", to: "use" },
          { from: "shape", to: "recover", branch: "error" },
        ],
      },
    });
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {});
    await page.goto(`${service.base}/runs/${started.run_id}`);
    await page.locator("h1 .badge.status-success").waitFor(SETTLED);
    expect(await stepState("shape")).toBe("failed, handled");
    expect(await stepState("use")).toBe("skipped");
    expect(await stepState("recover")).toBe("success");
    await page.locator('tr[data-step="shape"]').getByRole("button").click();
    expect(await page.locator(".step-error.handled").textContent()).toContain("took its error edges");
    expect(await page.locator('[data-run-node="shape"] .badge').textContent()).toBe("failed, handled");
    expect(await page.locator(".run-canvas .react-flow__edge.error-edge").count()).toBe(1);

    // In the editor: the node's error handle, its edge leaving it, and its On error settings.
    await page.goto(`${service.base}/flows/${flow.id}`);
    const shape = page.locator('.react-flow__node[data-id="shape"]');
    await shape.locator(".error-handle").waitFor();
    expect(await page.locator(".react-flow__edge.error-edge").count()).toBe(1);
    await shape.click();
    expect(await page.locator("#setting-on_error").inputValue()).toBe("branch");
    await page.locator("#setting-on_error").selectOption("continue");
    await expect.poll(() => shape.locator(".error-handle").count()).toBe(0);
  });

  it("links a flow.call's child run to the run that called it", async (test) => {
    screenshotOnFailure(test);
    const create = (name: string, nodes: object[], edges: object[]) =>
      service.api<{ id: string }>(context, "POST", "/api/flows", { name, definition: { nodes, edges } });
    const callee = await create(
      "Callee",
      [
        { id: "start", type: "manual", config: {} },
        { id: "answer", type: "set", config: { fields: { doubled: "{{ input.n }}{{ input.n }}" } } },
      ],
      [{ from: "start", to: "answer" }],
    );
    const caller = await create(
      "Caller",
      [
        { id: "start", type: "manual", config: {} },
        { id: "call", type: "flow.call", config: { flow_id: callee.id, input: { n: "{{ input.n }}" } } },
      ],
      [{ from: "start", to: "call" }],
    );
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${caller.id}/run`, {
      input: { n: 4 },
    });
    expect(await service.runEnded(context, started.run_id)).toBe("success");
    const { items } = await service.api<{ items: Array<{ id: string; flow_id: string }> }>(
      context,
      "GET",
      `/api/runs?flow_id=${callee.id}`,
    );
    expect(items).toHaveLength(1);
    await page.goto(`${service.base}/runs/${items[0]!.id}`);
    await page.locator("h1 .badge.status-success").waitFor(SETTLED);
    const link = page.getByRole("link", { name: started.run_id });
    await link.click();
    await page.waitForURL(`**/runs/${started.run_id}`);
    await page.locator('tr[data-step="call"] .badge.status-success').waitFor(SETTLED);
  });

  it("follows a run by its event stream, without polling, until it ends", async (test) => {
    screenshotOnFailure(test);
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Streamed",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          { id: "pause", type: "delay", name: "Pause", config: { duration: "3s" } },
          { id: "done", type: "set", name: "Done", config: { fields: { done: true } } },
        ],
        edges: [
          { from: "start", to: "pause" },
          { from: "pause", to: "done" },
        ],
      },
    });
    const started = await service.api<{ run_id: string }>(context, "POST", `/api/workflows/${flow.id}/run`, {
      input: {},
    });
    const reads: string[] = [];
    const count = (request: { url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith(`/api/runs/${started.run_id}`)) reads.push(path);
    };
    page.on("request", count);
    try {
      await page.goto(`${service.base}/runs/${started.run_id}`);
      await expect.poll(() => stepState("pause"), SETTLED).toBe("running");
      await expect.poll(() => stepState("done"), SETTLED).toBe("success");
      await page.locator("h1 .badge.status-success").waitFor();
    } finally {
      page.off("request", count);
    }
    const of = (suffix: string) => reads.filter((path) => path === `/api/runs/${started.run_id}${suffix}`).length;
    expect(of("/events")).toBe(1);
    // Read once as the page opens; the stream brought every change after that (polling reads each second).
    expect(of("")).toBe(1);
    // The steps: as the page opens, and once more at each status the page sees (running, success).
    expect(of("/steps")).toBeLessThanOrEqual(3);
  });

  it("tests one node from the editor on a sample input and shows its output and log; Ctrl+S saves", async (test) => {
    screenshotOnFailure(test);
    await page.goto(`${service.base}/flows/${flowId}`);
    await page.locator('.react-flow__node[data-id="compute"]').click();
    const panel = page.locator("details.node-test");
    await panel.locator("summary").click();
    const sample = panel.getByLabel("Sample input (JSON)");
    await sample.fill("{ not json");
    expect(await panel.getByRole("button", { name: "Run this node" }).isDisabled()).toBe(true);
    await sample.fill('{"rows": [5, 6]}');
    await panel.getByRole("button", { name: "Run this node" }).click();
    const output = panel.getByLabel("Test output");
    await output.waitFor(SETTLED);
    expect(JSON.parse((await output.textContent()) ?? "null")).toEqual({ total: 42 });
    expect(await panel.getByLabel("Test log").textContent()).toContain("summing 2 rows");
    expect(await panel.locator(".node-test-result .badge.status-success").count()).toBe(1);

    // Ctrl+S saves the draft, from a field being typed in too.
    const name = page.locator('input[name="node-name"]');
    await name.fill("Compute the totals");
    await name.press("Control+s");
    const savedName = async () => {
      const flow = await service.api<{ draft_version: number | null }>(context, "GET", `/api/flows/${flowId}`);
      if (flow.draft_version === null) return undefined;
      const draft = await service.api<{ definition: { nodes: Array<{ id: string; name?: string }> } }>(
        context,
        "GET",
        `/api/flows/${flowId}/versions/${flow.draft_version}`,
      );
      return draft.definition.nodes.find((node) => node.id === "compute")?.name;
    };
    await expect.poll(savedName, SETTLED).toBe("Compute the totals");
  });
});
