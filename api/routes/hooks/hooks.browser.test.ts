// Hook answers in a real browser: a flow's sync answer is served from the service's own origin, so
// Chromium must treat it as a sandboxed document that cannot act as one of the service's pages.
// The API listens on loopback (recording every request it gets), a real worker runs the flows.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, ConsoleMessage, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/helpers/chromium.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

describe("hook answers in Chromium", { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: Server;
  let base: string;
  /** Every request the API received, as "METHOD /path". */
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      h.app(req, res);
    }).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  /** Creates a flow and returns its id and hook path. */
  async function hookFlow(definition: ReturnType<typeof flow>) {
    const flowId = await h.createFlow(definition);
    const detail = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    return { flowId, path: detail.body.hook.path as string };
  }

  /** A flow whose GET hook answers with `html` as a page (sync, the flow's output as the answer). */
  function pageFlow(html: string) {
    const definition = flow(
      [
        {
          id: "page",
          type: "set",
          config: { fields: { status_code: 200, headers: { "Content-Type": "text/html" }, body: html } },
        },
      ],
      [["start", "page"]],
    );
    definition.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { methods: ["GET"], mode: "sync", response: "output" },
    } as (typeof definition.nodes)[0];
    return hookFlow(definition);
  }

  /** The flow the phishing page aims at: a form hook whose run input would hold what was typed. */
  function targetFlow() {
    const definition = flow([{ id: "after", type: "debug" }], [["start", "after"]]);
    definition.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { body_type: "form" },
    } as (typeof definition.nodes)[0];
    return hookFlow(definition);
  }

  const consoleSays = (page: Page, pattern: RegExp) =>
    page.waitForEvent("console", { predicate: (message: ConsoleMessage) => pattern.test(message.text()) });

  it("keeps a login-looking form in a hook answer from submitting to another hook", async () => {
    const target = await targetFlow();
    const phishing = await pageFlow(
      `<h1>Sign in</h1><form action='${target.path}' method='post'>` +
        "<input name='email'><input name='password' type='password'><button id='sign-in'>Sign in</button></form>",
    );
    const page = await browser.newPage();
    try {
      const answer = await page.goto(`${base}${phishing.path}`);
      expect(answer?.status()).toBe(200);
      // The page shows its form: what is refused is the submission, not the rendering.
      await page.fill("input[name=email]", "victim@example.com");
      await page.fill("input[name=password]", "victim-password");
      const blocked = consoleSays(page, /Blocked form submission/);
      await page.click("#sign-in");
      await blocked;

      expect(page.url()).toBe(`${base}${phishing.path}`);
      expect(received.filter((line) => line.includes(target.path))).toEqual([]);
      expect(await testPrisma().run.count({ where: { flowId: target.flowId } })).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("does not run an inline script of a hook answer", async () => {
    const target = await targetFlow();
    const scripted = await pageFlow(
      "<p>hello</p><script>document.title = 'script ran';" +
        `fetch('${target.path}', {method: 'POST', body: 'email=x'});</script>`,
    );
    const page = await browser.newPage();
    try {
      const blocked = consoleSays(page, /Blocked script execution|Refused to execute inline script/);
      const answer = await page.goto(`${base}${scripted.path}`);
      expect(answer?.status()).toBe(200);
      await blocked;

      expect(await page.locator("p").textContent()).toBe("hello");
      expect(await page.title()).not.toBe("script ran");
      expect(received.filter((line) => line.includes(target.path))).toEqual([]);
      expect(await testPrisma().run.count({ where: { flowId: target.flowId } })).toBe(0);
    } finally {
      await page.close();
    }
  });
});
