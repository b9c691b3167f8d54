// The Temporal Web UI of a dev server started as npm start starts it (scripts/infra/temporal.ts:
// --ui-codec-endpoint, behind the proxy that makes the UI send credentials), in Chromium: after
// logging in to the service, a run's input and result read decoded on its workflow page; in a
// browser that has not logged in, the codec endpoint refuses and they stay sealed. The temporal
// CLI decodes through the same endpoint with a session cookie as a header.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { Browser, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { closeDeps, createDeps, type AppDeps } from "../../deps.js";
import { createLogger } from "../../../lib/logger.js";
import { freePort } from "../../../scripts/infra/process.js";
import {
  locateTemporalCli,
  serviceSearchAttributes,
  startTemporalDevServer,
  type TemporalDevServer,
} from "../../../scripts/infra/temporal.js";
import { launchChromium } from "../../../test/helpers/chromium.js";
import { testConfig } from "../../../test/helpers/context.js";
import { searchableText } from "../../../test/helpers/histories.js";
import { createTestUser, login, TEST_PASSWORD } from "../../../test/helpers/identity.js";
import { flow, startTestWorker, testRegistry } from "../../../test/helpers/runs.js";

describe("the Temporal UI and CLI, decoding through the codec endpoint", { timeout: 180_000 }, () => {
  let dev: TemporalDevServer;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let deps: AppDeps;
  let server: Server;
  let browser: Browser;
  let api: string;
  let email: string;
  let cli: string;
  /** `svc_session=<token>` of a login through the API. */
  let sessionCookie: string;
  let runId: string;
  const marker = `MARKER-${randomUUID()}`;
  /** The decode requests the API answered, as "<status> <session cookie sent or not>". */
  const codecCalls: string[] = [];

  beforeAll(async () => {
    // The API's address first: the dev server's UI is told its codec endpoint when it starts.
    const apiPort = await freePort();
    api = `http://127.0.0.1:${apiPort}`;
    cli = await locateTemporalCli();
    dev = await startTemporalDevServer({
      cli,
      uiPort: 0,
      searchAttributes: serviceSearchAttributes,
      uiCodecEndpoint: `${api}/api/temporal-codec`,
    });
    const taskQueue = `ui-codec-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue, address: dev.address });
    const config = testConfig({
      TEMPORAL_ADDRESS: dev.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_UI_URL: dev.uiUrl!,
      PORT: String(apiPort),
    });
    deps = createDeps(config, createLogger(config, "ui-codec-test"), { nodes: testRegistry() });
    const app = createApp(deps);
    server = createServer((req, res) => {
      // The UI adds ?preserveStorageRefs=true (it would keep external storage's references as they are).
      if (req.method === "POST" && req.url?.split("?")[0] === "/api/temporal-codec/decode") {
        // Cookies are per host, not port: the UI's own (_csrf) come along; the session is ours.
        const session = /(^|;\s*)svc_session=/.test(req.headers.cookie ?? "");
        res.on("finish", () => codecCalls.push(`${res.statusCode} ${session ? "session" : "no session"}`));
      }
      app(req, res);
    }).listen(apiPort, "127.0.0.1");
    await once(server, "listening");

    const user = await createTestUser("ui-codec");
    email = user.email;
    const { cookie } = await login(app, email);
    sessionCookie = cookie;
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({
        name: "UI codec",
        definition: flow(
          [{ id: "shape", type: "set", config: { fields: { copy: "{{ input.secret }}" } } }],
          [["start", "shape"]],
        ),
      });
    expect(created.status).toBe(201);
    const started = await request(app)
      .post(`/api/workflows/${created.body.id}/run`)
      .set("Cookie", cookie)
      .send({ input: { secret: marker } });
    expect(started.status).toBe(201);
    runId = started.body.run_id;
    await expect(deps.temporal.workflow.getHandle(runId).result()).resolves.toMatchObject({ status: "success" });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await worker?.stop();
    if (deps) await closeDeps(deps);
    await dev?.stop();
  });

  const bodyText = (page: Page) => page.locator("body").innerText();
  const openRun = (page: Page) => page.goto(`${dev.uiUrl}/namespaces/default/workflows/${runId}`);

  it("shows the run's input and result decoded to a member logged in to the service", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // Logging in at the API's origin sets its session cookie for 127.0.0.1, which the UI sends.
      await page.goto(`${api}/healthz`);
      const status = await page.evaluate(
        async ([email, password]) =>
          (
            await fetch("/api/auth/login", {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ email, password }),
            })
          ).status,
        [email, TEST_PASSWORD],
      );
      expect(status).toBe(200);

      await openRun(page);
      // The result (a node's output) and the input (the run's pinned flow), both sealed in Temporal.
      await page.getByText(marker).first().waitFor({ timeout: 60_000 });
      await expect.poll(() => bodyText(page), { timeout: 30_000 }).toMatch(/"flowName": "UI codec"/);
      expect(await bodyText(page)).not.toContain("Codec Server could not connect");
      expect(codecCalls).toContain("200 session");
    } finally {
      await context.close();
    }
  });

  it("decodes for the temporal CLI given the session cookie as a codec header, and not without", async () => {
    const show = (...extra: string[]) =>
      promisify(execFile)(cli, [
        "workflow",
        "show",
        "--workflow-id",
        runId,
        "--address",
        dev.address,
        "--output",
        "json",
        "--codec-endpoint",
        `${api}/api/temporal-codec`,
        ...extra,
      ]).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: { stdout?: string; stderr?: string }) => ({
          ok: false,
          output: `${error.stdout ?? ""}${error.stderr ?? ""}`,
        }),
      );
    // The history as JSON, payloads in base64: the decoded ones hold the marker.
    const decoded = await show("--codec-header", `Cookie=${sessionCookie}`);
    expect(decoded.ok).toBe(true);
    expect(searchableText(decoded.output)).toContain(`"secret":"${marker}"`);
    // Without a session the endpoint answers 401, and the CLI gives up rather than show anything.
    const refused = await show("--command-timeout", "3s");
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/failed getting next history event/);
    expect(refused.output).not.toContain(marker);
  });

  it("shows them sealed to a browser that has not logged in", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await openRun(page);
      // The UI says the codec refused, and its input and result cards hold the ciphertext.
      await expect.poll(() => bodyText(page), { timeout: 60_000 }).toMatch(/Result\s+"[A-Za-z0-9+/]{40,}/);
      const text = await bodyText(page);
      expect(text).toContain("Codec Server could not connect");
      expect(text).toMatch(/Input\s+"[A-Za-z0-9+/]{40,}/);
      expect(text).not.toContain(marker);
      expect(text).not.toContain('"flowName"');
      expect(codecCalls).toContain("401 no session");
    } finally {
      await context.close();
    }
  });
});
