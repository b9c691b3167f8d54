// An agent's MCP servers in a real browser (Debian's Chromium through playwright-core) against the
// real service, a loopback model provider and a loopback MCP server built with the SDK: a server
// added on the agents page with its credential and tool allowlist is used by the run, and the
// run's page shows the tools it offered and the call made; and the ai.agent node's form in the flow
// editor saves the list typed. A failing test saves a screenshot.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp } from "../../api/app.js";
import { closeDeps, createDeps, type AppDeps } from "../../api/deps.js";
import { createLogger } from "../../lib/logger.js";
import { ensureDashboard, webDir, webDist } from "../../scripts/web-build.js";
import { launchChromium, locateChromium } from "../../test/helpers/chromium.js";
import { testConfig } from "../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider, type FakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../test/helpers/identity.js";
import { startMcpTestServer, type McpTestServer } from "../../test/helpers/mcp-test-server.js";
import { startTestWorker } from "../../test/helpers/runs.js";

const screenshots = path.join(webDir, ".screenshots");
const TIMEOUT = 180_000;
/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };
const TOKEN = `mcp-e2e-token-${randomUUID()}`;

describe("an agent's MCP servers in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
  let provider: FakeProvider;
  let mcp: McpTestServer;
  let deps: AppDeps;
  let server: Server;
  let base: string;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let browser: Browser;
  let page: Page;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;

  beforeAll(async () => {
    locateChromium();
    await ensureDashboard((line) => process.stdout.write(`[agent mcp e2e] ${line}\n`));
    provider = await startFakeProvider();
    mcp = await startMcpTestServer({
      token: TOKEN,
      tools(server) {
        server.registerTool(
          "stamp",
          { description: "Stamps a document.", inputSchema: { doc: z.string() } },
          async ({ doc }) => ({ content: [{ type: "text", text: `stamped ${doc}` }] }),
        );
        server.registerTool("shred", { description: "Shreds a document.", inputSchema: { doc: z.string() } }, () => {
          throw new Error("not allowlisted: never called");
        });
      },
    });
    const aiConfig = {
      OPENAI_API_KEY: "sk-test-openai-key",
      OPENAI_BASE_URL: `${provider.url}/v1`,
      AI_DEFAULT_PROVIDER: "openai",
      AI_DEFAULT_MODEL: "gpt-test",
      EGRESS_ALLOWLIST: "127.0.0.1",
    };
    const taskQueue = `agent-mcp-e2e-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, config: aiConfig });
    const config = testConfig({ ...aiConfig, TEMPORAL_TASK_QUEUE: taskQueue });
    deps = createDeps(config, createLogger(config, "agent-mcp-e2e"));
    const app = createApp({ ...deps, dashboardDir: webDist });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createTestUser("mcp-browser");
    cookie = (await login(app, user.email)).cookie;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(30_000);
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await worker?.stop();
    if (deps) await closeDeps(deps);
    provider?.close();
    mcp?.close();
  }, TIMEOUT);

  it("adds a server with its credential and allowlist to a run; the run's page shows the tool offered and called", async (context) => {
    context.onTestFailed(async () => {
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `agent-mcp-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[agent mcp e2e] screenshot of the failure: ${file}\n`);
    });
    const credential = await request(server)
      .post("/api/credentials")
      .set("Cookie", cookie)
      .send({ name: "Stamp desk", type: "bearer", data: { token: TOKEN } });
    expect(credential.status, JSON.stringify(credential.body)).toBe(201);
    provider.script(
      "openai",
      openAiAnswer({ toolCalls: [{ name: "desk__stamp", arguments: JSON.stringify({ doc: "invoice 7" }) }] }),
      openAiAnswer({ text: "Invoice 7 is stamped." }),
    );

    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.locator(".topbar nav").getByRole("link", { name: "Agents" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await page.getByLabel(/^Agent/).fill("stamper");
    await page.getByLabel("Instructions").fill("Stamp invoice 7");
    await page.getByRole("button", { name: "Add MCP server" }).click();
    const row = page.locator('[data-mcp-row="0"]');
    await row.getByLabel(/^URL/).fill(mcp.endpoint);
    await row.getByLabel(/^Label/).fill("desk");
    // The picker offers the workspace's credentials of the types a server takes.
    await expect.poll(() => row.getByLabel("Credential").textContent(), SHOWN).toContain("Stamp desk (bearer");
    await row.getByLabel("Credential").selectOption({ label: `Stamp desk (bearer${credentialHint(credential.body)})` });
    await row.getByLabel(/^Tools allowed/).fill("stamp");
    await page.getByRole("button", { name: "Start agent run" }).click();

    const run = page.locator("[data-agent-run]");
    await expect.poll(() => run.locator("h3 .badge").textContent(), SHOWN).toBe("success");
    const desk = run.locator('tr[data-mcp-server="desk"]');
    expect(await desk.textContent()).toContain(mcp.endpoint);
    expect(await desk.locator("[data-mcp-offered]").textContent()).toBe("offered: desk__stamp");
    expect(await desk.locator("[data-mcp-called]").textContent()).toMatch(/^called: desk__stamp \(step \d+\)$/);
    expect(await run.locator(".agent-answer").textContent()).toBe("Invoice 7 is stamped.");

    // The server got the call once, with the credential; the model was offered the allowlisted tool only.
    expect(mcp.calls.map((call) => [call.tool, call.args])).toEqual([["stamp", { doc: "invoice 7" }]]);
    expect(mcp.unauthorized).toBe(0);
    const offered = (provider.calls[0]!.body.tools as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(offered).toContain("desk__stamp");
    expect(offered).not.toContain("desk__shred");
    expect(await page.content()).not.toContain(TOKEN);
  });

  it("edits an ai.agent node's MCP servers in the flow editor: what is saved is the list typed", async (context) => {
    context.onTestFailed(async () => {
      mkdirSync(screenshots, { recursive: true });
      const file = path.join(screenshots, `agent-mcp-editor-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      process.stdout.write(`[agent mcp e2e] screenshot of the failure: ${file}\n`);
    });
    const credential = await request(server)
      .post("/api/credentials")
      .set("Cookie", cookie)
      .send({ name: "Editor desk", type: "bearer", data: { token: `${TOKEN}-editor` } });
    expect(credential.status).toBe(201);
    const created = await request(server)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({
        name: "Stamping",
        definition: {
          nodes: [
            { id: "start", type: "manual" },
            { id: "think", type: "ai.agent", config: { instructions: "Stamp the invoice" } },
          ],
          edges: [{ from: "start", to: "think" }],
        },
      });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = created.body.id as string;

    await page.goto(`${base}/flows/${flowId}`);
    await page.locator('.react-flow__node[data-id="think"]').click();
    const field = page.locator('[data-field="mcp_servers"]');
    await field.getByRole("button", { name: "Add MCP server" }).click();
    const row = field.locator('[data-mcp-row="0"]');
    await row.getByLabel("Transport").selectOption({ label: "HTTP+SSE (older servers)" });
    await row.getByLabel(/^URL/).fill("https://tools.example.com/sse");
    await row.getByLabel(/^Label/).fill("desk");
    await expect.poll(() => row.getByLabel("Credential").textContent(), SHOWN).toContain("Editor desk (bearer");
    await row
      .getByLabel("Credential")
      .selectOption({ label: `Editor desk (bearer${credentialHint(credential.body)})` });
    await row.getByLabel(/^Tools allowed/).fill("stamp, file");
    await row.getByLabel(/^Tools whose calls wait/).fill("file");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Published version 2: production runs it now.").waitFor();
    const saved = await request(server).get(`/api/flows/${flowId}`).set("Cookie", cookie);
    expect(saved.body.definition.nodes.find((node: { id: string }) => node.id === "think").config).toEqual({
      instructions: "Stamp the invoice",
      mcp_servers: [
        {
          url: "https://tools.example.com/sse",
          transport: "sse",
          label: "desk",
          credential_id: credential.body.id,
          tools: ["stamp", "file"],
          approval_tools: ["file"],
        },
      ],
    });
  });
});

/** The credential's hint as the picker shows it after its type (" …abcd"), or nothing. */
const credentialHint = (body: { hint?: string | null }) => (body.hint ? ` ${body.hint}` : "");
