// The dashboard in a real browser (Debian's Chromium through playwright-core) against the real
// service: the Express app listening on loopback and serving web/dist, a real worker on the shared
// Temporal dev server, the run's PostgreSQL database. A failing test saves a screenshot.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, firstLoad, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig } from "../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider, type FakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { startTestWorker } from "../../test/helpers/runs.js";

const screenshots = path.join(webDir, ".screenshots");
const TIMEOUT = 180_000;

describe("the dashboard in Chromium", { timeout: TIMEOUT }, () => {
  let provider: FakeProvider;
  /** Holds the model's final answer until the test has seen the earlier steps arrive. */
  let releaseAnswer = () => {};
  let deps: AppDeps;
  let server: Server;
  let base: string;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let target: LoopbackServer;
  /** web/dist served from another origin (DASHBOARD_ORIGIN), and from an origin the API does not know. */
  let hosted: LoopbackServer;
  let stranger: LoopbackServer;
  let browser: Browser;
  let page: Page;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  /** Calls of the stand-in third party: the first answers 404 (the node fails), later ones 200. */
  let flakyCalls = 0;

  beforeAll(async () => {
    locateChromium(); // fails at once, naming what to install, when there is no Chromium
    await ensureDashboard((line) => process.stdout.write(`[dashboard e2e] ${line}\n`));
    expect(existsSync(path.join(webDist, "index.html"))).toBe(true);

    // The agents' model: a loopback server speaking OpenAI's protocol, as the agent API tests use.
    provider = await startFakeProvider();
    const egress = {
      EGRESS_ALLOWLIST: "127.0.0.1",
      OPENAI_API_KEY: "sk-test-browser",
      OPENAI_BASE_URL: `${provider.url}/v1`,
      AI_DEFAULT_PROVIDER: "openai",
    };

    target = await startLoopbackServer((req, res) => {
      if (req.url?.startsWith("/flaky")) {
        flakyCalls += 1;
        res.writeHead(flakyCalls === 1 ? 404 : 200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(flakyCalls === 1 ? { error: "no such order yet" } : { ok: true, call: flakyCalls }));
        return;
      }
      res.writeHead(204).end();
    });
    // A dashboard hosted apart from the API: the same build, told the API's origin by index.html's meta.
    const elsewhere = express()
      .use("/assets", express.static(path.join(webDist, "assets")))
      .use((_req, res) => {
        const index = readFileSync(path.join(webDist, "index.html"), "utf8");
        res.type("html").send(index.replace("</head>", `<meta name="svc-api-base" content="${base}/" /></head>`));
      });
    hosted = await startLoopbackServer(elsewhere);
    stranger = await startLoopbackServer(elsewhere);

    const taskQueue = `dashboard-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: egress });
    const config = testConfig({ ...egress, TEMPORAL_TASK_QUEUE: taskQueue, DASHBOARD_ORIGIN: hosted.url });
    deps = createDeps(config, createLogger(config, "dashboard-e2e"));
    server = createApp({ ...deps, dashboardDir: webDist }).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createTestUser("browser");

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(30_000);
  }, TIMEOUT);

  afterAll(async () => {
    releaseAnswer();
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await worker?.stop();
    target?.close();
    hosted?.close();
    stranger?.close();
    provider?.close();
    if (deps) await closeDeps(deps);
  }, TIMEOUT);

  /** On failure, a screenshot of the page (the test's own, when it opened another), its path printed. */
  function screenshotOnFailure(context: TestContext, shown: () => Page | undefined = () => page) {
    context.onTestFailed(async () => {
      const failed = shown();
      if (!failed) return;
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `${context.task.name.replace(/[^a-z0-9]+/gi, "-")}-${Date.now()}.png`);
      await failed.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[dashboard e2e] screenshot of the failure: ${file}\n`);
    });
  }

  /** A link of the top bar (pages have links of their own, e.g. "← Flows"). */
  const nav = (name: string, on: Page = page) => on.locator(".topbar nav").getByRole("link", { name, exact: true });
  const canvasNode = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

  async function connect(from: string, to: string) {
    const source = await canvasNode(from).locator(".react-flow__handle.source").boundingBox();
    const sink = await canvasNode(to).locator(".react-flow__handle.target").boundingBox();
    if (!source || !sink) throw new Error(`handles of ${from} → ${to} are not on screen`);
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(sink.x + sink.width / 2, sink.y + sink.height / 2, { steps: 12 });
    await page.mouse.up();
  }

  /** Replaces the text of a CodeMirror field (insertText: no bracket auto-closing). */
  async function fillCode(field: string, text: string) {
    const content = page.locator(`.code-field[data-field="${field}"] .cm-content`);
    await content.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
  }

  it("keeps the first load within 250 KB of gzipped JavaScript (editor and charts load later)", () => {
    const load = firstLoad();
    process.stdout.write(
      `[dashboard e2e] first load: ${(load.jsGzipBytes / 1024).toFixed(1)} KB JS + ${(load.cssGzipBytes / 1024).toFixed(1)} KB CSS gzipped (${load.files.map((f) => f.file).join(", ")})\n`,
    );
    expect(load.files.some((f) => f.file.endsWith(".js"))).toBe(true);
    expect(load.jsGzipBytes).toBeLessThanOrEqual(250 * 1024);
    // The heavy parts stay out of it.
    expect(load.files.map((f) => f.file).join(" ")).not.toMatch(/flow-editor|home|code-editor|version-diff/);
  });

  it("logs in", async (context) => {
    screenshotOnFailure(context);
    await page.goto(base);
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    const paint = await page.evaluate(() =>
      (performance.getEntriesByType as (type: string) => Array<{ name: string; startTime: number }>)("paint").map(
        (entry) => ({ name: entry.name, ms: Math.round(entry.startTime) }),
      ),
    );
    process.stdout.write(`[dashboard e2e] first load paint: ${JSON.stringify(paint)}\n`);
    expect(paint.map((p) => p.name)).toContain("first-contentful-paint");

    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/invalid|incorrect|password/i);

    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    expect(await page.locator(".topbar .user").textContent()).toBe(user.email);
  });

  it("builds a three-node flow by drag and drop, refuses loops and mistakes early, and saves it", async (context) => {
    screenshotOnFailure(context);
    await nav("Flows").click();
    await page.getByText(/No flows yet/).waitFor();
    await page.getByLabel("New flow name").fill("Browser flow");
    await page.getByRole("button", { name: "Create flow" }).click();
    await page.waitForURL(/\/flows\/wf_/);
    await canvasNode("start").waitFor();
    // A new flow is inactive until its author activates it.
    expect(await page.locator(".editor-bar .badge").first().textContent()).toBe("inactive");

    // The starter node goes; the three nodes come from the palette.
    await canvasNode("start").click();
    await page.getByRole("button", { name: "Remove node" }).click();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(0);
    const canvas = page.getByTestId("canvas");
    const drops: Array<[string, number, number]> = [
      // Well inside the canvas: a node at its edge can sit under the inspector, where clicks miss it.
      ["manual", 60, 160],
      ["set", 260, 260],
      ["http_request", 460, 160],
    ];
    for (const [type, x, y] of drops) {
      await page.locator(`[data-palette-type="${type}"]`).dragTo(canvas, { targetPosition: { x, y } });
      await canvasNode(type).waitFor();
    }
    expect(await page.locator(".react-flow__node").count()).toBe(3);
    await connect("manual", "set");
    await connect("set", "http_request");
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(2);
    // Each edge ends in an arrowhead.
    expect(await page.locator(".react-flow__edge path[marker-end]").count()).toBe(2);

    // A loop and a second edge between the same nodes are refused as they are drawn, saying why.
    await connect("http_request", "set");
    await page.locator(".edge-refused").waitFor();
    expect(await page.locator(".edge-refused").textContent()).toBe(
      "That would make a loop: set already leads to http_request.",
    );
    await connect("manual", "set");
    await expect.poll(() => page.locator(".edge-refused").textContent()).toBe("manual already leads to set.");
    expect(await page.locator(".react-flow__edge").count()).toBe(2);

    // The set node's fields, in its JSON field (CodeMirror).
    await canvasNode("set").click();
    await page.getByRole("heading", { name: "Set" }).waitFor();
    await fillCode("fields", '{ "order_id": "{{ input.order_id }}" }');

    // Saved without the HTTP node's URL: the editor says so in plain words, on the node and the field,
    // without asking the API.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await canvasNode("http_request").locator(".flow-node-problem").first().waitFor();
    expect(await canvasNode("http_request").locator(".flow-node-problem").allTextContents()).toEqual([
      "URL is required",
    ]);
    expect(await page.locator(".error-message").textContent()).toBe("Not saved: fix what is marked first (1 problem).");
    await canvasNode("http_request").click();
    expect(await page.locator(".field.invalid .field-error").textContent()).toBe("URL is required");
    await page.locator("#field-url").fill(`${target.url}/flaky/{{ nodes.set.order_id }}`);
    // Fixed: the marks go at once, before any save.
    await expect.poll(() => page.locator(".field.invalid").count()).toBe(0);
    expect(await page.locator(".flow-node-problem").count()).toBe(0);
    expect(await page.locator(".error-message").count()).toBe(0);

    // What only the API can tell (a template reading a node that runs later) lands on that node's
    // field, in plain words, once; and goes when the field is fixed.
    await canvasNode("set").click();
    await fillCode("fields", '{ "order_id": "{{ nodes.http_request.id }}" }');
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const problem = canvasNode("set").locator(".flow-node-problem");
    await problem.first().waitFor();
    expect(await problem.allTextContents()).toEqual([
      'Fields reads {{ nodes.http_request }}, but "http_request" does not run before "set"',
    ]);
    expect(await page.locator(".error-message").allTextContents()).toEqual(["The flow definition is invalid"]);
    await page.locator(".field.invalid .field-error").waitFor();
    await fillCode("fields", '{ "order_id": "{{ input.order_id }}" }');
    await expect.poll(() => problem.count()).toBe(0);
    expect(await page.locator(".error-message").count()).toBe(0);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 2. Not live yet: production runs version 1.").waitFor();
    expect(await page.locator(".flow-node-problem").count()).toBe(0);
    // The draft goes live with Publish.
    await page.locator(".editor-bar").getByText("Published v1 · Draft v2").waitFor();
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
  });

  it("asks before leaving unsaved changes: a link, the back button, a reload", async (context) => {
    screenshotOnFailure(context);
    const editorUrl = page.url();
    await canvasNode("set").click();
    await page.locator('input[name="node-name"]').fill("Prepare the order");
    await page.locator(".badge.unsaved").waitFor();
    const dialogs: string[] = [];
    const answer = (accept: boolean) =>
      page.once("dialog", (dialog) => {
        dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void (accept ? dialog.accept() : dialog.dismiss());
      });

    // A link of the app: asked, and staying keeps the work.
    answer(false);
    await page.getByRole("link", { name: "← Flows" }).click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toBe("confirm: “Browser flow” has unsaved changes. Leave without saving them?");
    expect(page.url()).toBe(editorUrl);
    expect(await page.locator('input[name="node-name"]').inputValue()).toBe("Prepare the order");

    // The browser's back button: the same question; staying puts the editor's address back.
    answer(false);
    await page.goBack();
    await expect.poll(() => dialogs.length).toBe(2);
    await expect.poll(() => page.url()).toBe(editorUrl);
    await page.locator(".badge.unsaved").waitFor();

    // A reload: the browser's own question.
    answer(false);
    void page.reload().catch(() => undefined);
    await expect.poll(() => dialogs.length).toBe(3);
    expect(dialogs[2]).toMatch(/^beforeunload/);
    await page.locator(".badge.unsaved").waitFor();
    expect(await page.locator('input[name="node-name"]').inputValue()).toBe("Prepare the order");

    // Leaving agreed to: the change is dropped.
    answer(true);
    await nav("Flows").click();
    await page.waitForURL(/\/flows$/);
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("set").waitFor();
    expect(await canvasNode("set").locator(".flow-node-name").textContent()).toBe("Set");
    expect(dialogs).toHaveLength(4);
  });

  it("runs the flow, shows each node's step and the failing node's error, and retries it", async (context) => {
    screenshotOnFailure(context);
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("heading", { name: "Run" }).waitFor();
    // Only an active flow runs: activated first.
    expect(await page.getByText("Activate the flow to run it").count()).toBe(1);
    await page.getByRole("button", { name: "Activate" }).click();
    await page.locator(".editor-bar .badge.status-active").waitFor();
    await fillCode("run-input", '{ "order_id": "A-17" }');
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.waitForURL(/\/runs\/run_/);
    const firstRun = page.url();

    for (const node of ["manual", "set", "http_request"]) await page.locator(`tr[data-step="${node}"]`).waitFor();
    await page.locator("h1 .badge.status-failed").waitFor();
    const error = page.locator(".step-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/404/);
    expect(await page.locator('tr[data-step="set"] .badge').textContent()).toBe("success");
    expect(await page.locator(".timeline-bar").count()).toBeGreaterThanOrEqual(3);
    // The failing node's input (the set node's output, from the API) beside its output.
    expect(await page.locator('[data-io="input"] pre').first().textContent()).toContain('"order_id": "A-17"');

    // Where it stopped, on the canvas too, with the error's beginning.
    expect(await page.locator('[data-run-node="http_request"] .badge').textContent()).toBe("failed");
    expect(await page.locator('[data-run-node="http_request"] .run-node-peek').textContent()).toMatch(/404/);
    expect(await page.locator(".run-error").textContent()).toMatch(/^The run failed at http_request: /);

    await page.getByRole("button", { name: "Retry from the failed node" }).click();
    await page.waitForURL((url) => url.toString() !== firstRun && /\/runs\/run_/.test(url.pathname));
    await page.locator("h1 .badge.status-success").waitFor();
    await page.locator('tr[data-step="http_request"] .badge.status-success').waitFor();
    expect(await page.getByText("retry of").count()).toBe(1);
    expect(flakyCalls).toBe(2);
    // The steps it took over read as such, in graph order, before the one it ran; only that one has a bar.
    const firstRunId = new URL(firstRun).pathname.split("/").at(-1);
    expect(
      await page.locator("tr[data-step]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-step"))),
    ).toEqual(["manual", "set", "http_request"]);
    for (const node of ["manual", "set"]) {
      expect(await page.locator(`tr[data-step="${node}"] td[data-label="Status"]`).textContent()).toBe(
        `carried over from run ${firstRunId}`,
      );
    }
    expect(await page.locator(".timeline-label").allTextContents()).toEqual(["http_request"]);
    // The run's output shows the third party's answer.
    expect(await page.locator("pre.run-output").textContent()).toContain('"call": 2');

    // The runs list filters by trigger through the API: only the retry.
    await nav("Runs").click();
    await page.getByLabel("Trigger filter").selectOption("retry");
    await expect.poll(() => page.locator("table.list tbody tr").count()).toBe(1);
    expect(await page.locator('table.list tbody tr td[data-label="Trigger"]').textContent()).toBe("retry");
    // The flows list shows the flow's last run (the retry, a success) from the API.
    await nav("Flows").click();
    await page.locator("tr", { hasText: "Browser flow" }).locator("[data-last-run] .badge.status-success").waitFor();
  });

  it("saves a changed config value as a new version and shows the change as a line diff", async (context) => {
    screenshotOnFailure(context);
    await nav("Flows").click();
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("http_request").click();
    const oldUrl = `${target.url}/flaky/{{ nodes.set.order_id }}`;
    const newUrl = `${target.url}/flaky/{{ nodes.set.order_id }}?source=editor`;
    expect(await page.locator("#field-url").inputValue()).toBe(oldUrl);
    await page.locator("#field-url").fill(newUrl);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved: version 3.").waitFor();

    // Version 2 against the canvas: the URL's line changed, the rest did not.
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByLabel("Compare with version").selectOption("2");
    await page.locator(".side-by-side h4", { hasText: "v2" }).waitFor();
    const changed = page.locator('.version-diff tr[data-diff="changed"]');
    await changed.first().waitFor();
    expect(await changed.count()).toBe(1);
    const [oldLine, newLine] = await Promise.all([
      changed.locator("td.diff-old.removed del").textContent(),
      changed.locator("td.diff-new.added ins").textContent(),
    ]);
    expect(oldLine).toContain(`"url": "${oldUrl}"`);
    expect(oldLine).not.toContain("source=editor");
    expect(newLine).toContain(`"url": "${newUrl}"`);
    expect(await page.locator(".diff-summary").textContent()).toBe("−1 +1 lines");
    const unchanged = page.locator('.version-diff tr[data-diff="same"]', { hasText: '"id": "http_request"' });
    expect(await unchanged.locator("td.removed, td.added").count()).toBe(0);
    expect(await unchanged.locator("td.diff-old").textContent()).toBe(
      await unchanged.locator("td.diff-new").textContent(),
    );

    // Version 1 (the starter node only): its node removed, the three of the canvas added.
    await page.getByLabel("Compare with version").selectOption("1");
    await page.locator(".side-by-side h4", { hasText: "v1" }).waitFor();
    await expect
      .poll(() => page.locator(".version-diff td.diff-old.removed").allTextContents())
      .toContainEqual(expect.stringContaining('"id": "start"'));
    expect(await page.locator(".version-diff td.diff-new.added").allTextContents()).toContainEqual(
      expect.stringContaining('"id": "http_request"'),
    );
    await page.getByLabel("Compare with version").selectOption("");
    expect(await page.locator(".side-by-side").count()).toBe(0);

    // The comparison closes with its button and with Esc.
    await page.getByLabel("Compare with version").selectOption("1");
    await page.getByRole("dialog", { name: "v1 compared with the canvas" }).waitFor();
    await page.getByRole("button", { name: "Close the comparison" }).click();
    expect(await page.locator(".side-by-side").count()).toBe(0);
    await page.getByLabel("Compare with version").selectOption("2");
    await page.getByRole("dialog", { name: "v2 compared with the canvas" }).waitFor();
    await page.keyboard.press("Escape");
    expect(await page.locator(".side-by-side").count()).toBe(0);

    // Version 2 restored: saved again as the draft (version 4), and on the canvas; production keeps 2.
    await page.getByLabel("Compare with version").selectOption("2");
    await page.getByRole("button", { name: "Restore this version" }).click();
    await page
      .getByText("Restored version 2 as the draft, version 4. Not live yet: production runs version 2.")
      .waitFor();
    expect(await page.locator(".side-by-side").count()).toBe(0);
    expect(await page.locator(".badge.unsaved").count()).toBe(0);
    await canvasNode("http_request").click();
    expect(await page.locator("#field-url").inputValue()).toBe(oldUrl);
    const stored = await page.evaluate(async () => {
      const flows = (await fetch("/api/flows").then((r) => r.json())) as { items: Array<{ id: string; name: string }> };
      const id = flows.items.find((f) => f.name === "Browser flow")!.id;
      return (await fetch(`/api/flows/${id}`).then((r) => r.json())) as {
        version: number;
        draft_version: number | null;
        definition: { nodes: Array<{ id: string; config: { url?: string } }> };
      };
    });
    expect(stored).toMatchObject({ version: 2, draft_version: 4 });
    expect(stored.definition.nodes.find((n) => n.id === "http_request")!.config.url).toBe(oldUrl);
  });

  it("exports a flow as JSON and imports it as a new flow", async (context) => {
    screenshotOnFailure(context);
    await nav("Flows").click();
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("http_request").waitFor();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export JSON" }).click(),
    ]);
    const file = await download.path();
    const exported = JSON.parse(readFileSync(file, "utf8")) as {
      name: string;
      definition: { nodes: Array<{ id: string; config: Record<string, unknown> }>; edges: unknown[] };
    };
    expect(exported.name).toBe("Browser flow");
    expect(exported.definition.nodes.map((n) => n.id)).toEqual(["manual", "set", "http_request"]);
    expect(exported.definition.edges).toHaveLength(2);
    expect(exported.definition.nodes[1]!.config.fields).toEqual({ order_id: "{{ input.order_id }}" });

    await nav("Flows").click();
    const copy = { ...exported, name: "Imported flow" };
    await page.getByLabel("Import flow JSON").setInputFiles({
      name: "imported.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(copy)),
    });
    await page.waitForURL(/\/flows\/wf_/);
    await page.getByRole("heading", { name: "Imported flow" }).waitFor();
    await canvasNode("http_request").waitFor();
    // Imported inactive: it runs once someone activates it.
    expect(await page.locator(".editor-bar .badge").first().textContent()).toBe("inactive");
    expect(await page.locator(".react-flow__node").count()).toBe(3);

    // A file that is no flow: the API's message, readable.
    await nav("Flows").click();
    await page.getByLabel("Import flow JSON").setInputFiles({
      name: "broken.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ nodes: [] })),
    });
    await expect
      .poll(() => page.locator(".error-message").allTextContents())
      .toContainEqual(expect.stringContaining("a flow needs at least one node"));
  });

  it("renders a 200-node flow in the editor (time printed, not asserted)", async (context) => {
    screenshotOnFailure(context);
    const flowId = await page.evaluate(async () => {
      const nodes = [{ id: "start", type: "manual", config: {} }];
      const edges = [];
      for (let i = 1; i < 200; i++) {
        nodes.push({ id: `debug_${i}`, type: "debug", config: {} });
        edges.push({ from: i === 1 ? "start" : `debug_${i - 1}`, to: `debug_${i}` });
      }
      const res = await fetch("/api/flows", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "Two hundred nodes", definition: { nodes, edges } }),
      });
      return ((await res.json()) as { id: string }).id;
    });
    expect(flowId).toMatch(/^wf_/);
    // Through another page: the flows list reads the list again when it opens.
    await nav("Runs").click();
    await nav("Flows").click();
    const link = page.getByRole("link", { name: "Two hundred nodes" });
    await link.waitFor();
    const started = await page.evaluate(() => performance.now());
    await link.click();
    await expect
      .poll(() => page.evaluate(() => performance.getEntriesByName("flow-rendered-200").length), { timeout: 60_000 })
      .toBe(1);
    const rendered = await page.evaluate(() => performance.getEntriesByName("flow-rendered-200")[0]!.startTime);
    process.stdout.write(`[dashboard e2e] 200-node flow rendered in ${Math.round(rendered - started)} ms\n`);
    expect(await page.locator(".react-flow__node").count()).toBe(200);
  });

  it("names an error flow for a flow, and keeps it through a later save of the canvas", async (context) => {
    screenshotOnFailure(context);
    const definitionOf = async () =>
      (
        (await page.evaluate(
          (flowPath) => fetch(flowPath).then((r) => r.json()),
          new URL(page.url()).pathname.replace(/^\/flows/, "/api/flows"),
        )) as { definition: { error_flow_id?: string } }
      ).definition;
    const { items } = (await page.evaluate(() => fetch("/api/flows?limit=200").then((r) => r.json()))) as {
      items: Array<{ id: string; name: string }>;
    };
    const handler = items.find((f) => f.name === "Imported flow")!;
    await nav("Flows").click();
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("http_request").waitFor();
    const picker = page.getByLabel("When a run fails, run");
    await expect.poll(() => picker.locator("option").allTextContents()).toContain("Imported flow");
    // The flow itself is not offered.
    expect(await picker.locator("option").allTextContents()).not.toContain("Browser flow");
    await picker.selectOption(handler.id);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText(/Published version \d+: production runs it now\./).waitFor();
    expect((await definitionOf()).error_flow_id).toBe(handler.id);

    // A save of the canvas alone (a node moved) keeps it, and the page shows it after a reload.
    const node = canvasNode("set");
    const box = (await node.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 30, { steps: 5 });
    await page.mouse.up();
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText(/Published version \d+: production runs it now\./).waitFor();
    expect((await definitionOf()).error_flow_id).toBe(handler.id);
    await page.reload();
    await canvasNode("http_request").waitFor();
    await expect.poll(() => page.getByLabel("When a run fails, run").inputValue()).toBe(handler.id);

    // The workspace's own, for flows that name none: in Settings, saved as it is picked.
    await nav("Settings").click();
    const workspacePicker = page.locator("#workspace-error-flow");
    await expect.poll(() => workspacePicker.locator("option").allTextContents()).toContain("Imported flow");
    await workspacePicker.selectOption(handler.id);
    await page.getByText("Saved.").waitFor();
    const settings = async () =>
      (await page.evaluate(() => fetch("/api/workspace/settings").then((r) => r.json()))) as { error_flow_id: string };
    expect((await settings()).error_flow_id).toBe(handler.id);
    await workspacePicker.selectOption("");
    await expect.poll(async () => (await settings()).error_flow_id).toBeNull();
  });

  it("undoes and redoes canvas changes, by button and by keyboard, and tidies the layout", async (context) => {
    screenshotOnFailure(context);
    await nav("Flows").click();
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("http_request").waitFor();
    const undo = page.getByRole("button", { name: "Undo" });
    const redo = page.getByRole("button", { name: "Redo" });
    expect(await undo.isDisabled()).toBe(true);
    expect(await redo.isDisabled()).toBe(true);
    const nodeCount = () => page.locator(".react-flow__node").count();
    const edgeCount = () => page.locator(".react-flow__edge").count();
    const before = { nodes: await nodeCount(), edges: await edgeCount() };

    // A node removed (with its edges), then a name typed into another.
    await canvasNode("set").click();
    await page.keyboard.press("Delete");
    await expect.poll(nodeCount).toBe(before.nodes - 1);
    await canvasNode("http_request").click();
    await page.locator('input[name="node-name"]').fill("Call the shop");
    await expect.poll(() => canvasNode("http_request").locator(".flow-node-name").textContent()).toBe("Call the shop");

    await undo.click();
    await expect
      .poll(() => canvasNode("http_request").locator(".flow-node-name").textContent())
      .not.toBe("Call the shop");
    await undo.click();
    await expect.poll(nodeCount).toBe(before.nodes);
    await expect.poll(edgeCount).toBe(before.edges);
    await redo.click();
    await expect.poll(nodeCount).toBe(before.nodes - 1);
    // The keyboard, outside text fields.
    await page.locator(".react-flow__pane").click();
    await page.keyboard.press("Control+z");
    await expect.poll(nodeCount).toBe(before.nodes);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(nodeCount).toBe(before.nodes - 1);
    await page.keyboard.press("Control+z");
    await expect.poll(nodeCount).toBe(before.nodes);

    // Tidy up: the nodes in layers along the edges, none on another; an undo puts them back.
    const positionOf = async (id: string) => {
      const style = (await canvasNode(id).getAttribute("style")) ?? "";
      const [, x, y] = /translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec(style) ?? [];
      return { x: Number(x), y: Number(y) };
    };
    const ids = ["manual", "set", "http_request"];
    const untidy = await Promise.all(ids.map(positionOf));
    await page.getByRole("button", { name: "Tidy up" }).click();
    await expect
      .poll(async () => JSON.stringify(await Promise.all(ids.map(positionOf))))
      .not.toBe(JSON.stringify(untidy));
    const [manual, set, http] = await Promise.all(ids.map(positionOf));
    expect(manual!.x).toBeLessThan(set!.x);
    expect(set!.x).toBeLessThan(http!.x);
    const boxes = await Promise.all(ids.map(async (id) => (await canvasNode(id).boundingBox())!));
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart).toBe(true);
      }
    }
    await undo.click();
    await expect.poll(async () => JSON.stringify(await Promise.all(ids.map(positionOf)))).toBe(JSON.stringify(untidy));

    // Nothing saved: leaving drops the changes.
    page.once("dialog", (dialog) => void dialog.accept());
    await nav("Flows").click();
    await page.waitForURL(/\/flows$/);
  });

  it("stores a credential, picks it in a node, rotates it, and names the flow using it before deleting", async (context) => {
    screenshotOnFailure(context);
    const token = `tok-${randomUUID()}`;
    await nav("Credentials").click();
    await page.getByText(/No credentials yet/).waitFor();
    await page.getByLabel("Credential name").fill("Orders API");
    await page.getByLabel("Credential type").selectOption("bearer");
    await page.getByLabel("Token", { exact: true }).fill(token);
    await page.getByRole("button", { name: "Store credential" }).click();
    const row = page.locator('[data-credential="Orders API"]');
    await row.waitFor();
    expect(await row.locator(".hint").textContent()).toBe(`…${token.slice(-4)}`);
    // Once stored, the value is nowhere on the page (the form is empty again).
    expect(await page.content()).not.toContain(token);
    const { items } = (await page.evaluate(() => fetch("/api/credentials").then((r) => r.json()))) as {
      items: Array<{ id: string; name: string }>;
    };
    const id = items.find((c) => c.name === "Orders API")!.id;

    // The HTTP node's Credential field offers the workspace's credentials of the types it takes.
    await nav("Flows").click();
    await page.getByRole("link", { name: "Browser flow" }).click();
    await canvasNode("http_request").click();
    const picker = page.locator("#field-credential_id");
    await expect
      .poll(() => picker.locator("option").allTextContents())
      .toContain(`Orders API (bearer …${token.slice(-4)})`);
    await picker.selectOption(id);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText(/Published version \d+: production runs it now\./).waitFor();
    const saved = (await page.evaluate(
      (flowPath) => fetch(flowPath).then((r) => r.json()),
      new URL(page.url()).pathname.replace(/^\/flows/, "/api/flows"),
    )) as { definition: { nodes: Array<{ id: string; config: Record<string, unknown> }> } };
    expect(saved.definition.nodes.find((n) => n.id === "http_request")!.config.credential_id).toBe(id);

    // A rotation: a new value, a new hint, the same credential.
    await nav("Credentials").click();
    await row.getByRole("button", { name: "Rotate" }).click();
    const rotated = `tok-${randomUUID()}`;
    await row.getByLabel("New Token").fill(rotated);
    await row.getByRole("button", { name: "Save new value" }).click();
    await expect.poll(() => row.locator(".hint").textContent()).toBe(`…${rotated.slice(-4)}`);

    // Deleting it names the flow that uses it first, with a link; it stays unless deleted anyway.
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    const inUse = row.locator(".in-use");
    await inUse.waitFor();
    expect(await inUse.getByRole("link").allTextContents()).toEqual(["Browser flow"]);
    await row.getByRole("button", { name: "Keep it" }).click();
    await expect.poll(() => inUse.count()).toBe(0);
    expect(await page.locator('[data-credential="Orders API"]').count()).toBe(1);
  });

  it("creates an outgoing webhook endpoint", async (context) => {
    screenshotOnFailure(context);
    await nav("Settings").click();
    await page.getByText(/No endpoints yet/).waitFor();
    const url = `${target.url}/hooks/svc`;
    await page.getByLabel("Webhook URL").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.locator(`[data-endpoint="${url}"]`).waitFor();
    expect(await page.getByText(/Signing secret \(shown once/).textContent()).toMatch(/whsec_|[A-Za-z0-9]{16,}/);
    // 21 pings: its deliveries open under it a page of 20 at a time, and close again.
    const pinged = await page.evaluate(async (endpointUrl) => {
      const { items } = (await fetch("/api/settings/webhooks").then((r) => r.json())) as {
        items: Array<{ id: string; url: string }>;
      };
      const id = items.find((e) => e.url === endpointUrl)!.id;
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) {
        statuses.push((await fetch(`/api/settings/webhooks/${id}/ping`, { method: "POST" })).status);
      }
      return statuses;
    }, url);
    expect(pinged).toEqual(Array(21).fill(202));
    const endpoint = page.locator(`[data-endpoint="${url}"]`);
    const deliveries = endpoint.getByRole("button", { name: "Deliveries" });
    await deliveries.click();
    await endpoint.locator(".deliveries").waitFor();
    expect(await deliveries.getAttribute("aria-expanded")).toBe("true");
    const rows = endpoint.locator(".deliveries tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    await endpoint.getByRole("button", { name: "Older" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await endpoint.getByRole("button", { name: "Newer" }).click();
    await expect.poll(() => rows.count()).toBe(20);
    await deliveries.click();
    await expect.poll(() => endpoint.locator(".deliveries").count()).toBe(0);
    const listed = await page.evaluate(() => fetch("/api/settings/webhooks").then((r) => r.json()));
    expect((listed as { items: Array<{ url: string }> }).items.map((e) => e.url)).toEqual([url]);
  });

  it("writes and reads an agent's memory", async (context) => {
    screenshotOnFailure(context);
    await nav("Agents").click();
    await page.getByText(/No memory entries/).waitFor();
    // 20 entries written through the API, then one through the form: 21 in key order, 20 a page.
    const written = await page.evaluate(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const body = JSON.stringify({ agent: "assistant", key: `zz:${String(i).padStart(2, "0")}`, value: i });
        const headers = { "content-type": "application/json" };
        statuses.push((await fetch("/api/agent/memory", { method: "POST", headers, body })).status);
      }
      return statuses;
    });
    expect(written).toEqual(Array(20).fill(200));
    await page.getByLabel("Memory key").fill("customer:42");
    await page.getByLabel("Memory value").fill('{ "tier": "gold" }');
    await page.getByRole("button", { name: "Write" }).click();
    const row = page.locator("tr").filter({ hasText: "customer:42" });
    await row.waitFor();
    expect(JSON.parse((await row.locator("pre").textContent()) ?? "")).toEqual({ tier: "gold" });
    const card = page.locator(".card").filter({ has: page.getByRole("heading", { name: "Memory of assistant" }) });
    const keys = card.locator(".agent-memory code");
    await expect.poll(() => keys.count()).toBe(20);
    await card.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => keys.allTextContents()).toEqual(["zz:19"]);
    await card.getByRole("button", { name: "Previous" }).click();
    await expect.poll(() => keys.count()).toBe(20);
    expect(await keys.first().textContent()).toBe("customer:42");
  });

  it("starts an agent run and watches its model and tool steps arrive, then its answer, log and memory", async (context) => {
    screenshotOnFailure(context);
    const held = new Promise<void>((resolve) => (releaseAnswer = resolve));
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [
          { name: "memory_write", arguments: JSON.stringify({ key: "order:A-17", value: { status: "shipped" } }) },
          { name: "log_write", arguments: JSON.stringify({ message: "order A-17 is on its way", level: "info" }) },
        ],
      }),
      { ...openAiAnswer({ text: "Order A-17 has shipped; noted in memory." }), after: held },
    );
    await nav("Agents").click();
    await page.getByLabel("Instructions").fill("Where is order A-17? Remember it.");
    await page.getByRole("button", { name: "Start agent run" }).click();
    const run = page.locator("[data-agent-run]");
    await run.waitFor();

    // While the model's second answer is held: the first model call and both tool calls are in.
    const steps = run.locator("tr[data-step-kind]");
    await run.locator('tr[data-step-kind="tool"][data-step-name="log.write"]').waitFor();
    expect(await run.locator("h3 .badge").textContent()).toBe("running");
    const seen = await steps.evaluateAll((rows) => rows.map((r) => `${r.dataset.stepKind}:${r.dataset.stepName}`));
    // A model step is named after the model that answered (the fake answers as gpt-test).
    expect(seen).toEqual(["model:gpt-test", "tool:memory.write", "tool:log.write"]);
    expect(await run.locator(".agent-answer").count()).toBe(0);

    releaseAnswer();
    await run.locator("h3 .badge.status-success").waitFor();
    expect(await run.locator(".agent-answer").textContent()).toBe("Order A-17 has shipped; noted in memory.");
    expect(await steps.count()).toBe(4);
    expect(await steps.last().getAttribute("data-step-kind")).toBe("model");
    // The tool call's input, as the model sent it.
    await steps.nth(1).locator("summary").click();
    expect(await steps.nth(1).locator("pre").first().textContent()).toContain("order:A-17");

    // What the tools wrote: the agent's log and its memory.
    await page.locator(".agent-log li", { hasText: "order A-17 is on its way" }).waitFor();
    const memory = page.locator(".agent-memory tr", { hasText: "order:A-17" });
    await memory.waitFor();
    expect(JSON.parse((await memory.locator("pre").textContent()) ?? "")).toEqual({ status: "shipped" });
    expect(provider.calls).toHaveLength(2);
    expect(provider.calls[0]!.headers.authorization).toBe("Bearer sk-test-browser");
    expect(provider.calls[0]!.body.model).toBe("gpt-4o-mini");
  });

  it("logs out", async (context) => {
    screenshotOnFailure(context);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    const status = await page.evaluate(() => fetch("/api/auth/session").then((r) => r.status));
    expect(status).toBe(401);
  });

  it("works from another origin (DASHBOARD_ORIGIN): log in, a list, a write through CORS and the CSRF guard", async (context) => {
    const elsewhere = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const other = await elsewhere.newPage();
    other.setDefaultTimeout(30_000);
    screenshotOnFailure(context, () => other);
    const apiCalls: string[] = [];
    other.on("request", (req) => {
      if (req.url().includes("/api/")) apiCalls.push(`${req.method()} ${new URL(req.url()).origin}`);
    });
    try {
      await other.goto(`${hosted.url}/flows`);
      await other.getByRole("heading", { name: "Log in" }).waitFor();
      await other.getByLabel("E-mail").fill(user.email);
      await other.getByLabel("Password").fill(user.password);
      await other.getByRole("button", { name: "Log in" }).click();
      await other.locator(".topbar .user").waitFor();
      expect(new URL(other.url()).origin).toBe(hosted.url);

      // A list page, read with the session cookie the API set for its own origin.
      await nav("Flows", other).click();
      await other.getByRole("link", { name: "Browser flow" }).waitFor();
      // A write: the preflight passes CORS, the POST passes the CSRF guard on its Origin.
      await other.getByLabel("New flow name").fill("Made elsewhere");
      await other.getByRole("button", { name: "Create flow" }).click();
      await other.waitForURL(/\/flows\/wf_/);
      await other.getByRole("heading", { name: "Made elsewhere" }).waitFor();
      expect(new URL(other.url()).origin).toBe(hosted.url);
      // Every API call went to the API's origin, none to the dashboard's.
      expect(apiCalls.length).toBeGreaterThan(3);
      expect(new Set(apiCalls.map((call) => call.split(" ")[1]))).toEqual(new Set([base]));
      expect(apiCalls).toContain(`POST ${base}`);
    } finally {
      await elsewhere.close();
    }

    // The same build on an origin the API does not list: the browser keeps the API's answers from it
    // (no CORS headers), and the page says where to look.
    const strangers = await browser.newContext();
    try {
      const foreign = await strangers.newPage();
      await foreign.goto(stranger.url);
      const alert = foreign.getByRole("alert");
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toBe(
        `The service at ${base} does not answer, or does not accept this page's origin (the API's DASHBOARD_ORIGIN)`,
      );
      expect(await foreign.locator(".topbar .user").count()).toBe(0);
    } finally {
      await strangers.close();
    }
  });
});
