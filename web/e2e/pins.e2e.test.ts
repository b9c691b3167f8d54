// Pinned data in the editor, in Chromium against the real service (issue 51): a flow manual →
// http_request (to a loopback server counting its calls) → transform. The HTTP node's output is
// pinned as typed JSON (a broken one is refused, named); "Run to here" on the transform runs a test
// run whose transform output is computed from the pinned data while the server gets no call
// ("Test this node" on the transform starts from the pin); the pin stays with the draft through a
// reload. Then a past run is opened in the editor ("Open in
// editor" on its page) and a node's output pinned from it. Last, a condition pinned as typed JSON
// with the branch it takes: "Run to here" on that branch's node runs it, though the input goes the
// other way.
import { describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { useDashboardPage, shownTestRun } from "./dashboard-service.js";

const TIMEOUT = 180_000;
let calls = 0;

describe("pinned data in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage({
    thirdParty: (_req, res) => {
      calls += 1;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ amount: 5 }));
    },
  });
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);

  async function createFlow(name: string) {
    const { service, context } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name,
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {}, position: { x: 40, y: 120 } },
          {
            id: "fetch",
            type: "http_request",
            config: { method: "GET", url: `${service.target.url}/order` },
            position: { x: 320, y: 120 },
          },
          {
            id: "shape",
            type: "transform",
            config: { expression: '{"doubled": body.amount * 2}' },
            position: { x: 600, y: 120 },
          },
        ],
        edges: [
          { from: "start", to: "fetch" },
          { from: "fetch", to: "shape" },
        ],
      },
    });
    return flow.id;
  }

  /** Opens the selected node's "Pinned data". */
  async function openPins(nodeId: string) {
    await canvasNode(nodeId).click();
    const pins = session.page.locator("details.pin-output");
    if ((await pins.getAttribute("open")) === null) await pins.locator("summary").click();
    return pins;
  }

  /** "Run to here" on the node; the test run's id once it ended in `status`, and its steps by node. */
  async function runToHere(nodeId: string, status: string) {
    const { service, context, page } = session;
    await canvasNode(nodeId).click();
    await page.getByRole("button", { name: "Run to here" }).click();
    const { runId } = await shownTestRun(page, status);
    const steps = await service.api<{ items: Array<{ node_id: string; status: string; output: unknown }> }>(
      context,
      "GET",
      `/api/runs/${runId}/steps`,
    );
    return { runId, steps: Object.fromEntries(steps.items.map((step) => [step.node_id, step])) };
  }

  it("runs to the transform on the HTTP node's typed pin without calling the server", async () => {
    const { service, context, page } = session;
    const flowId = await createFlow("Pinned order");
    calls = 0;
    await page.goto(`${service.base}/flows/${flowId}`);
    await canvasNode("fetch").waitFor();
    expect(await canvasNode("fetch").locator("[data-pinned]").count()).toBe(0);

    const pins = await openPins("fetch");
    const typed = pins.getByLabel("Output to pin (JSON)");
    await typed.fill('{ "status": 200, "body": ');
    await pins.getByRole("button", { name: "Pin typed JSON" }).click();
    expect(await pins.getByRole("alert").textContent()).toMatch(/^Pinned output: not JSON \(/);
    expect(await canvasNode("fetch").locator("[data-pinned]").count()).toBe(0);
    await typed.fill('{ "status": 200, "body": { "amount": 21 } }');
    await pins.getByRole("button", { name: "Pin typed JSON" }).click();
    await canvasNode("fetch").locator("[data-pinned]").waitFor();
    expect(JSON.parse((await pins.locator(".pinned pre").textContent()) ?? "null")).toEqual({
      status: 200,
      body: { amount: 21 },
    });

    // The pin panel and the pin mark add no axe violation (the config form's field-type labels'
    // contrast, from before pins, is left to its own fix).
    const violations = await seriousAxeViolations(page);
    expect(violations.filter((line) => /pin/i.test(line))).toEqual([]);

    // "Test this node" on the transform starts from the pinned output, its upstream.
    await canvasNode("shape").click();
    const nodeTest = page.locator("details.node-test");
    await nodeTest.locator("summary").click();
    const sample = nodeTest.getByLabel("Sample input (JSON)");
    await expect
      .poll(async () => JSON.parse(await sample.inputValue()) as unknown)
      .toEqual({
        status: 200,
        body: { amount: 21 },
      });

    const { runId, steps } = await runToHere("shape", "success");
    expect(steps.shape).toMatchObject({ status: "success", output: { doubled: 42 } });
    expect(steps.fetch).toMatchObject({ output: { status: 200, body: { amount: 21 } } });
    expect(calls).toBe(0);
    const { run } = await service.api<{ run: { test: boolean; status: string } }>(context, "GET", `/api/runs/${runId}`);
    expect(run).toMatchObject({ test: true, status: "success" });

    // The pin lives with the draft, in this browser: a reload keeps it; unpinned, the node runs again.
    await page.reload();
    await canvasNode("fetch").locator("[data-pinned]").waitFor();
    await (await openPins("fetch")).getByRole("button", { name: "Unpin" }).click();
    expect(await canvasNode("fetch").locator("[data-pinned]").count()).toBe(0);
    const unpinned = await runToHere("shape", "success");
    expect(unpinned.steps.shape).toMatchObject({ output: { doubled: 10 } });
    expect(calls).toBe(1);
  });

  it("opens a past run in the editor and pins a node's output from it", async () => {
    const { service, context, page } = session;
    const flowId = await createFlow("Order from a run");
    calls = 0;
    const past = await service.api<{ run_id: string }>(context, "POST", `/api/flows/${flowId}/test-runs`, {
      input: {},
    });
    expect(await service.runEnded(context, past.run_id)).toBe("success");
    expect(calls).toBe(1);

    await page.goto(`${service.base}/runs/${past.run_id}`);
    await page.getByRole("link", { name: "Open in editor" }).click();
    await page.waitForURL(new RegExp(`/flows/${flowId}\\?from_run=${past.run_id}$`));
    const pins = await openPins("fetch");
    await pins.getByRole("button", { name: `Pin from run ${past.run_id}` }).click();
    await canvasNode("fetch").locator("[data-pinned]").waitFor();
    expect(await pins.locator(".pinned").textContent()).toContain(`Pinned from the run ${past.run_id}`);

    // The run to here reads the answer pinned from that run, calling nothing.
    const { steps } = await runToHere("shape", "success");
    expect(steps.shape).toMatchObject({ output: { doubled: 10 } });
    expect(steps.fetch).toMatchObject({ output: { status: 200, body: { amount: 5 } } });
    expect(calls).toBe(1);
  });

  it("pins a condition with the branch it takes, and the test run follows it", async () => {
    const { service, context, page } = session;
    const flow = await service.api<{ id: string }>(context, "POST", "/api/flows", {
      name: "Pinned condition",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {}, position: { x: 40, y: 120 } },
          {
            id: "check",
            type: "condition",
            config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
            position: { x: 320, y: 120 },
          },
          { id: "yes", type: "set", config: { fields: { side: "true" } }, position: { x: 600, y: 60 } },
          { id: "no", type: "set", config: { fields: { side: "false" } }, position: { x: 600, y: 240 } },
        ],
        edges: [
          { from: "start", to: "check" },
          { from: "check", to: "yes", branch: "true" },
          { from: "check", to: "no", branch: "false" },
        ],
      },
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    const pins = await openPins("check");
    // A branching node's typed pin names its branch: the condition's first, true, unless another is chosen.
    const branch = pins.getByLabel("Branch it takes");
    expect(await branch.inputValue()).toBe("true");
    await branch.selectOption("false");
    await branch.selectOption("true");
    await pins.getByLabel("Output to pin (JSON)").fill('{ "amount": 500 }');
    await pins.getByRole("button", { name: "Pin typed JSON" }).click();
    await canvasNode("check").locator("[data-pinned]").waitFor();
    expect(await pins.locator(".pinned").textContent()).toContain("Takes the branch true");

    // The test input ({}) would go false: the pin sends the run down true.
    const { steps } = await runToHere("yes", "success");
    expect(steps.check).toMatchObject({ status: "success", branch: "true", output: { amount: 500 } });
    expect(steps.yes).toMatchObject({ status: "success", output: { side: "true" } });
  });
});
