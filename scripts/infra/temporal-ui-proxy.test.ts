import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { startLoopbackServer } from "../../test/helpers/loopback-server.js";
import { freePort } from "./process.js";
import { startTemporalUiProxy, TEMPORAL_UI_SETTINGS_PATH } from "./temporal-ui-proxy.js";

const SETTINGS = {
  Auth: { Enabled: false },
  Codec: { Endpoint: "http://127.0.0.1:3000/api/temporal-codec", PassAccessToken: false, IncludeCredentials: false },
  Version: "2.54.1",
};

describe("the Temporal UI's proxy", () => {
  const seen: Array<{ method?: string; url?: string; acceptEncoding?: string; body: string }> = [];
  let settings: object = SETTINGS;
  const closers: Array<() => unknown> = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  /** A stand-in for the UI server: gzips when asked, as the real one does. */
  const start = async () => {
    const ui = await startLoopbackServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        seen.push({
          method: req.method,
          url: req.url,
          acceptEncoding: req.headers["accept-encoding"],
          body: Buffer.concat(chunks).toString(),
        });
        const gzip = /gzip/.test(req.headers["accept-encoding"] ?? "");
        const body = req.url?.startsWith(TEMPORAL_UI_SETTINGS_PATH)
          ? Buffer.from(JSON.stringify(settings))
          : Buffer.from(`page ${req.method} ${req.url}`);
        res.writeHead(req.url === "/missing" ? 404 : 200, {
          "Content-Type": "application/json",
          "Set-Cookie": ["_csrf=abc; Path=/; SameSite=Strict"],
          ...(gzip ? { "Content-Encoding": "gzip" } : {}),
        });
        res.end(gzip ? gzipSync(body) : body);
      });
    });
    closers.push(ui.close);
    const proxy = await startTemporalUiProxy({ port: 0, target: { host: "127.0.0.1", port: ui.port } });
    closers.push(proxy.close);
    return proxy;
  };

  it("tells the UI to send credentials to its codec endpoint, and changes nothing else of the settings", async () => {
    const proxy = await start();
    const res = await fetch(`${proxy.url}${TEMPORAL_UI_SETTINGS_PATH}`, { headers: { "Accept-Encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBe("_csrf=abc; Path=/; SameSite=Strict");
    expect(await res.json()).toEqual({ ...SETTINGS, Codec: { ...SETTINGS.Codec, IncludeCredentials: true } });
    // Asked for uncompressed, to be rewritten.
    expect(seen.at(-1)).toMatchObject({ method: "GET", acceptEncoding: undefined });

    // Without a codec endpoint, there is nothing to send credentials to.
    settings = { ...SETTINGS, Codec: { Endpoint: "", IncludeCredentials: false } };
    expect(await (await fetch(`${proxy.url}${TEMPORAL_UI_SETTINGS_PATH}`)).json()).toEqual(settings);
    settings = SETTINGS;
  });

  it("passes every other request and answer through as they are", async () => {
    const proxy = await start();
    const page = await fetch(`${proxy.url}/namespaces/default/workflows?query=x`, {
      headers: { "Accept-Encoding": "gzip" },
    });
    expect([page.status, await page.text()]).toEqual([200, "page GET /namespaces/default/workflows?query=x"]);
    expect(seen.at(-1)?.acceptEncoding).toBe("gzip");

    const posted = await fetch(`${proxy.url}/api/v1/namespaces/default/workflows/x/signal`, {
      method: "POST",
      body: '{"signal":1}',
    });
    expect(await posted.text()).toBe("page POST /api/v1/namespaces/default/workflows/x/signal");
    expect(seen.at(-1)?.body).toBe('{"signal":1}');
    expect((await fetch(`${proxy.url}/missing`)).status).toBe(404);
  });

  it("answers 502 while the UI server does not answer", async () => {
    const proxy = await startTemporalUiProxy({ port: 0, target: { host: "127.0.0.1", port: await freePort() } });
    closers.push(proxy.close);
    const res = await fetch(`${proxy.url}/`);
    expect(res.status).toBe(502);
  });
});
