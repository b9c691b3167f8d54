// Inbound hooks through real HTTP requests (supertest on the app), runs on a real worker.
import { createHmac } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { makeTestApps } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const SECRET = "hook-secret-0123456789";
const h = useRunHarness({ config: { HOOK_MAX_BODY_BYTES: "2048", DASHBOARD_ORIGIN: "https://app.example.com" } });
const otherApp = makeTestApps();

/** A flow whose entry node is the given trigger, followed by a debug node. */
async function hookFlow(trigger: { type: string; config?: object }) {
  const definition = flow([{ id: "after", type: "debug" }], [["start", "after"]]);
  definition.nodes[0] = { id: "start", ...trigger } as (typeof definition.nodes)[0];
  const flowId = await h.createFlow(definition);
  const detail = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  expect(detail.body.hook).toMatchObject({ node_id: "start", type: trigger.type, live: true });
  return { flowId, path: detail.body.hook.path as string, version: detail.body.version as number };
}

/** Listens on a free loopback port until the file's tests end; its base URL. */
const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});
async function listen(server: http.Server): Promise<string> {
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A reverse proxy in front of `upstream` that honours X-Accel-Redirect as nginx does: an answer
 * naming an internal location is replaced by that location's content, which no client may ask
 * for directly.
 */
function accelRedirectProxy(upstream: string) {
  return listen(
    http.createServer((req, res) => {
      const forwarded = http.request(
        `${upstream}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          const internal = answer.headers["x-accel-redirect"];
          if (internal) {
            answer.resume();
            res.writeHead(200, { "content-type": "text/plain" }).end(`internal location ${String(internal)}`);
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", () => res.writeHead(502).end());
      req.pipe(forwarded);
    }),
  );
}

const runsOf = (flowId: string) => testPrisma().run.count({ where: { flowId } });

const setStatus = async (flowId: string, status: string) => {
  const { body } = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  const res = await request(h.app)
    .put(`/api/flows/${flowId}`)
    .set("Cookie", h.cookie)
    .send({ version: body.version, status });
  expect(res.status).toBe(200);
};

describe("inbound hooks", () => {
  it("starts a run from a request (async: 202 once durably started), with credentials kept out of the input", async () => {
    const { flowId, path } = await hookFlow({ type: "http_trigger" });
    expect(path).toMatch(/^\/api\/hooks\/hk_[A-Za-z0-9_-]{32}$/);
    const res = await request(h.app)
      .post(`${path}?source=crm`)
      .set("Cookie", h.cookie)
      .set("Authorization", "Bearer abc")
      .set("X-Custom", "yes")
      .send({ order: 7 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ run_id: expect.stringMatching(/^run_/), deduplicated: false });
    expect(res.body.status_url).toBe(`/api/runs/${res.body.run_id}`);
    const run = await h.waitForEnd(res.body.run_id);
    expect(run).toMatchObject({ status: "success", trigger: "http_trigger", flow_id: flowId });
    expect(run.output).toMatchObject({ method: "POST", query: { source: "crm" }, body: { order: 7 } });
    const headers = (run.output as { headers: Record<string, string> }).headers;
    expect(headers["x-custom"]).toBe("yes");
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it("verifies HMAC signatures with a timestamp: tampered or stale requests get 401 and start nothing", async () => {
    const { flowId, path } = await hookFlow({
      type: "webhook",
      config: {
        verification: { type: "hmac", secret: SECRET, header: "X-Signature", timestamp_header: "X-Timestamp" },
      },
    });
    const body = JSON.stringify({ event: "paid", id: "evt_1" });
    const sign = (timestamp: number, text: string) =>
      `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${text}`).digest("hex")}`;
    const now = Math.floor(Date.now() / 1000);
    const send = (text: string, timestamp: number, signature: string) =>
      request(h.app)
        .post(path)
        .set("Content-Type", "application/json")
        .set("X-Timestamp", String(timestamp))
        .set("X-Signature", signature)
        .send(text);

    const tampered = await send(body.replace("paid", "refunded"), now, sign(now, body));
    expect([tampered.status, tampered.body.code]).toEqual([401, "hook_unauthorized"]);
    const stale = await send(body, now - 3600, sign(now - 3600, body));
    expect(stale.status).toBe(401);
    expect(stale.body.error).toMatch(/tolerance/);
    expect((await request(h.app).post(path).send(body)).status).toBe(401);
    expect(await runsOf(flowId)).toBe(0);

    const ok = await send(body, now, sign(now, body));
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    const run = await h.waitForEnd(ok.body.run_id);
    expect(run.output).toMatchObject({ body: { event: "paid", id: "evt_1" } });
    expect((run.output as { headers: object }).headers).not.toHaveProperty("x-signature");
  });

  it("checks a shared secret header", async () => {
    const { flowId, path } = await hookFlow({
      type: "webhook",
      config: { verification: { type: "shared_secret", secret: SECRET } },
    });
    expect((await request(h.app).post(path).set("X-Webhook-Secret", "wrong-secret-000000").send({})).status).toBe(401);
    expect(await runsOf(flowId)).toBe(0);
    expect((await request(h.app).post(path).set("X-Webhook-Secret", SECRET).send({})).status).toBe(202);
  });

  it("maps one dedupe key to one run, for repeated and for racing deliveries", async () => {
    const { flowId, path } = await hookFlow({ type: "webhook", config: { dedupe: { body_path: "event.id" } } });
    const first = await request(h.app).post(path).set("Idempotency-Key", "delivery-1").send({ n: 1 });
    const again = await request(h.app).post(path).set("Idempotency-Key", "delivery-1").send({ n: 1 });
    expect(first.status).toBe(202);
    expect(again.body).toMatchObject({ run_id: first.body.run_id, deduplicated: true });

    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(h.app)
          .post(path)
          .send({ event: { id: "evt_race" } }),
      ),
    );
    expect(racing.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(racing.map((r) => r.body.run_id)).size).toBe(1);
    expect(await runsOf(flowId)).toBe(2);
  });

  it("replays a dedupe key only for the same request: another caller's body with a used order.id answers 409 idempotency_key_reused, not the first caller's output", async () => {
    const { flowId, path } = await hookFlow({
      type: "webhook",
      config: { mode: "sync", dedupe: { body_path: "order.id" } },
    });
    const paid = { order: { id: "o-1001" }, email: "ada@example.com", card: "4242 4242 4242 4242" };
    const first = await request(h.app).post(path).send(paid);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ deduplicated: false, output: { body: paid } });

    // The same delivery again, its keys in another order and spaced otherwise: the first run's answer.
    const redelivered = await request(h.app)
      .post(path)
      .set("Content-Type", "application/json")
      .send('{ "card": "4242 4242 4242 4242", "email": "ada@example.com", "order": { "id": "o-1001" } }');
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ run_id: first.body.run_id, deduplicated: true, output: { body: paid } });

    // Another caller who knows the order id: another body, the same body on another query or method.
    const attempts = {
      body: await request(h.app)
        .post(path)
        .send({ order: { id: "o-1001" }, email: "eve@example.com" }),
      query: await request(h.app).post(`${path}?again=1`).send(paid),
      method: await request(h.app).put(path).send(paid),
    };
    expect(attempts.method.status).toBe(405);
    for (const [what, res] of Object.entries({ body: attempts.body, query: attempts.query })) {
      expect(res.status, what).toBe(409);
      expect(res.body, what).toEqual({ error: expect.any(String), code: "idempotency_key_reused" });
      for (const secret of [first.body.run_id, "ada@example.com", "4242"]) expect(res.text, what).not.toContain(secret);
    }
    expect(await runsOf(flowId)).toBe(1);

    // The same holds for a key from the Idempotency-Key header, and for an async hook.
    const byHeader = await hookFlow({ type: "webhook" });
    const keyed = (body: object) => request(h.app).post(byHeader.path).set("Idempotency-Key", "evt-bound").send(body);
    const accepted = await keyed({ amount: 5 });
    expect((await keyed({ amount: 5 })).body).toMatchObject({ run_id: accepted.body.run_id, deduplicated: true });
    const other = await keyed({ amount: 500 });
    expect([other.status, other.body]).toEqual([409, { error: expect.any(String), code: "idempotency_key_reused" }]);
    expect(await runsOf(byHeader.flowId)).toBe(1);
  });

  it("answers 404 and starts nothing while the flow is inactive, seen at once by another API process", async () => {
    const { flowId, path } = await hookFlow({ type: "http_trigger" });
    const second = createApp(otherApp({ TEMPORAL_TASK_QUEUE: h.taskQueue }).deps);
    await setStatus(flowId, "inactive");
    for (const app of [h.app, second]) {
      const res = await request(app).post(path).send({});
      expect([res.status, res.body.code]).toEqual([404, "hook_not_found"]);
    }
    expect(await runsOf(flowId)).toBe(0);
    await setStatus(flowId, "active");
    expect((await request(second).post(path).send({})).status).toBe(202);
  });

  it("refuses wrong methods (405 with Allow), oversized bodies (413), bad JSON (400) and preflights, without CORS", async () => {
    const { flowId, path } = await hookFlow({ type: "http_trigger", config: { methods: ["POST", "PUT"] } });
    const get = await request(h.app).get(path);
    expect([get.status, get.headers.allow]).toEqual([405, "POST, PUT"]);
    const big = await request(h.app).post(path).set("Content-Type", "text/plain").send("x".repeat(4096));
    expect([big.status, big.body.code]).toEqual([413, "payload_too_large"]);
    const bad = await request(h.app).post(path).set("Content-Type", "application/json").send("{not json");
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_json"]);
    const preflight = await request(h.app)
      .options(path)
      .set("Origin", "https://app.example.com")
      .set("Access-Control-Request-Method", "POST");
    expect(preflight.status).toBe(405);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect(await runsOf(flowId)).toBe(0);
  });

  it("refuses deeply nested JSON (400 json_too_deep), bytes that are not UTF-8 (400 invalid_utf8) and text PostgreSQL cannot store (400 unstorable_text), starting nothing", async () => {
    const json = await hookFlow({ type: "http_trigger" });
    const text = await hookFlow({ type: "http_trigger", config: { body_type: "text" } });
    const post = (path: string, type: string, body: string) =>
      request(h.app).post(path).set("Content-Type", type).send(body);

    // This file's app takes 2 KiB bodies; an API with the default 1 MiB reads them to the end.
    const roomy = createApp(otherApp({ TEMPORAL_TASK_QUEUE: h.taskQueue }).deps);
    for (const depth of [10_000, 100_000]) {
      const deep = await request(roomy)
        .post(json.path)
        .set("Content-Type", "application/json")
        .send("[".repeat(depth) + "]".repeat(depth));
      expect(deep.status).toBe(400);
      expect(deep.body).toMatchObject({ code: "json_too_deep", error: expect.stringContaining("64 levels") });
    }

    const answers = {
      "body.note": await post(json.path, "application/json", '{"note":"a\\u0000b"}'),
      "body (a key)": await post(json.path, "application/json", '{"k\\u0000":1}'),
      "body.half": await post(json.path, "application/json", '{"half":"\\ud800"}'),
      body: await post(text.path, "text/plain", "a\u0000b"),
      "query.q": await request(h.app).post(`${json.path}?q=%00`).send({}),
    };
    for (const [path, res] of Object.entries(answers)) {
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ code: "unstorable_text", details: [{ path }] });
    }
    // A token that is none (a NUL in it, say) is no hook, and never reaches the database.
    for (const token of ["hk_%00", `hk_${"a".repeat(31)}%00`, "%E0%A4%A"]) {
      const res = await request(h.app).post(`/api/hooks/${token}`).send({});
      expect(res.status, token).toBeLessThan(500);
      expect(res.body, token).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    // Bytes that are not UTF-8 are refused, not replaced, whatever the body type reads them as.
    const form = await hookFlow({ type: "http_trigger", config: { body_type: "form" } });
    for (const [path, type] of [
      [json.path, "application/json"],
      [text.path, "text/plain"],
      [form.path, "application/x-www-form-urlencoded"],
    ] as const) {
      const latin1 = await request(h.app)
        .post(path)
        .set("Content-Type", type)
        .serialize((bytes) => bytes)
        .send(Buffer.from(type === "application/json" ? '{"note":"caf\xe9"}' : "note=caf\xe9", "latin1"));
      expect([latin1.status, latin1.body.code], type).toEqual([400, "invalid_utf8"]);
    }
    expect(await runsOf(form.flowId)).toBe(0);
    const gzipped = await post(json.path, "application/json", "not gzip").set("Content-Encoding", "gzip");
    expect([gzipped.status, gzipped.body.code]).toEqual([400, "invalid_content_encoding"]);
    expect(await runsOf(json.flowId)).toBe(0);
    expect(await runsOf(text.flowId)).toBe(0);
  });

  it("never takes a session cookie as authority, and a regenerated token retires the old URL", async () => {
    const unknown = await request(h.app)
      .post("/api/hooks/hk_00000000000000000000000000000000")
      .set("Cookie", h.cookie)
      .send({});
    expect(unknown.status).toBe(404);
    const { flowId, path } = await hookFlow({ type: "http_trigger" });
    const regenerated = await request(h.app).post(`/api/flows/${flowId}/hook/regenerate`).set("Cookie", h.cookie);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.hook.path).not.toBe(path);
    expect((await request(h.app).post(path).send({})).status).toBe(404);
    expect((await request(h.app).post(regenerated.body.hook.path).send({})).status).toBe(202);
  });
  it("answers with the run's result in sync mode, and falls back to 202 when the wait runs out", async () => {
    const quick = await hookFlow({ type: "http_trigger", config: { mode: "sync" } });
    const res = await request(h.app).post(quick.path).send({ order: 9 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "success", output: { body: { order: 9 } }, error: null });

    const definition = flow([{ id: "wait", type: "delay", config: { duration: "2s" } }], [["start", "wait"]]);
    definition.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { mode: "sync", sync_timeout_ms: 300 },
    } as (typeof definition.nodes)[0];
    const slowId = await h.createFlow(definition);
    const slow = await request(h.app).get(`/api/flows/${slowId}`).set("Cookie", h.cookie);
    const started = Date.now();
    const fallback = await request(h.app).post(slow.body.hook.path).send({});
    expect(fallback.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(1900);
    expect(fallback.body.status_url).toBe(`/api/runs/${fallback.body.run_id}`);
    expect((await h.waitForEnd(fallback.body.run_id)).status).toBe("success");
  });

  it("lets the flow choose the sync answer's status, body and safe headers; a failed run answers 502", async () => {
    const shaped = flow(
      [
        {
          id: "answer",
          type: "transform",
          config: {
            expression:
              '{"status_code": 201, "body": {"created": body.order}, "headers": {"Location": "/orders/" & $string(body.order), "Set-Cookie": "session=stolen", "X-Flow-Order": "yes"}}',
          },
        },
      ],
      [["start", "answer"]],
    );
    shaped.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { mode: "sync", response: "output" },
    } as (typeof shaped.nodes)[0];
    const shapedFlow = await request(h.app)
      .get(`/api/flows/${await h.createFlow(shaped)}`)
      .set("Cookie", h.cookie);
    const res = await request(h.app).post(shapedFlow.body.hook.path).send({ order: 42 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ created: 42 });
    expect(res.headers.location).toBe("/orders/42");
    expect(res.headers["x-flow-order"]).toBe("yes");
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["x-run-id"]).toMatch(/^run_/);

    // An output without status_code is the body of a 200.
    const plain = await hookFlow({ type: "http_trigger", config: { mode: "sync", response: "output" } });
    const echoed = await request(h.app).post(plain.path).send({ n: 1 });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toMatchObject({ method: "POST", body: { n: 1 } });

    const failing = flow(
      [{ id: "boom", type: "test_fail", config: { failures: 1, fatal: true } }],
      [["start", "boom"]],
    );
    failing.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { mode: "sync", response: "output" },
    } as (typeof failing.nodes)[0];
    const failingFlow = await request(h.app)
      .get(`/api/flows/${await h.createFlow(failing)}`)
      .set("Cookie", h.cookie);
    const failed = await request(h.app).post(failingFlow.body.hook.path).send({});
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: "run_failed", status: "failed", run_id: expect.stringMatching(/^run_/) });
    expect(failed.body.error).toMatch(/planned failure/);
  });

  it("sends only the allowed headers of a flow's answer: no proxy control, hop-by-hop, cookie or CORS header leaves, and the run's log names what was left out", async () => {
    const forbidden: Record<string, string> = {
      "X-Accel-Redirect": "/internal/operator-only",
      "X-Accel-Buffering": "no",
      "X-Accel-Charset": "utf-7",
      "x-accel-expires": "0",
      "X-Accel-Limit-Rate": "1",
      "X-Sendfile": "/etc/passwd",
      "X-LIGHTTPD-send-file": "/etc/shadow",
      "X-Original-URL": "/admin/secret",
      "X-Rewrite-URL": "/admin/rewritten",
      "X-Forwarded-Host": "evil.example",
      "X-Custom": "old-style",
      Connection: "flow-connection",
      "Keep-Alive": "timeout=999",
      "Proxy-Authenticate": "Basic realm=flow",
      Trailer: "X-Flow-Late",
      Upgrade: "websocket",
      "Set-Cookie": "svc_session=flow-chosen",
      "Access-Control-Allow-Origin": "https://evil.example",
      "Content-Disposition": "attachment; filename=update.exe",
      Link: "<https://evil.example/x.css>; rel=preload",
      "Strict-Transport-Security": "max-age=0",
      "X-Flow-": "no name after the prefix",
      "X-Flow-Line": "one\r\nX-Accel-Redirect: /internal/operator-only",
    };
    const definition = flow(
      [
        {
          id: "answer",
          type: "set",
          config: {
            fields: {
              status_code: 200,
              body: { answered: "by the flow" },
              headers: {
                ...forbidden,
                "X-Flow-Count": 3,
                "Content-Type": "application/json",
                "Cache-Control": "no-store",
                ETag: '"v1"',
                "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT",
                Vary: "Accept",
                "Content-Language": "en",
                "X-Flow-Order": "42",
              },
            },
          },
        },
      ],
      [["start", "answer"]],
    );
    definition.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { methods: ["GET"], mode: "sync", response: "output" },
    } as (typeof definition.nodes)[0];
    const detail = await request(h.app)
      .get(`/api/flows/${await h.createFlow(definition)}`)
      .set("Cookie", h.cookie);
    const hookPath = detail.body.hook.path as string;

    // Behind a proxy that acts on X-Accel-Redirect, the caller gets the flow's answer, not the internal location.
    const proxy = await accelRedirectProxy(await listen(http.createServer(h.app)));
    const proxied = await fetch(`${proxy}${hookPath}`);
    expect(proxied.status).toBe(200);
    expect(await proxied.text()).toBe('{"answered":"by the flow"}');

    const res = await request(h.app).get(hookPath);
    expect(res.status, res.text).toBe(200);
    // Whatever the server sets itself (Connection, Strict-Transport-Security) is never the flow's value.
    for (const [name, value] of Object.entries(forbidden))
      expect(res.headers[name.toLowerCase()], name).not.toBe(value);
    for (const name of Object.keys(forbidden).filter((name) =>
      /^(x-|set-cookie|access-control|link|content-disp)/i.test(name),
    )) {
      expect(res.headers[name.toLowerCase()], name).toBeUndefined();
    }
    expect(res.headers["x-flow-count"]).toBeUndefined();
    expect(res.headers).toMatchObject({
      "content-type": expect.stringMatching(/^application\/json/),
      "cache-control": "no-store",
      etag: '"v1"',
      "last-modified": "Wed, 21 Oct 2015 07:28:00 GMT",
      vary: expect.stringContaining("Accept"),
      "content-language": "en",
      "x-flow-order": "42",
    });

    // The flow's author reads, in the run's log at the trigger node, the names left out (no value).
    const runId = res.headers["x-run-id"] as string;
    const logs = await request(h.app).get(`/api/logs?run_id=${runId}`).set("Cookie", h.cookie);
    expect(logs.status).toBe(200);
    const notes = (logs.body.items as Array<{ node_id: string; level: string; message: string; data: unknown }>).filter(
      (entry) => entry.message.startsWith("The hook's answer left out"),
    );
    expect(notes).toHaveLength(1);
    const dropped = [...Object.keys(forbidden), "X-Flow-Count"];
    expect(notes[0]).toMatchObject({ node_id: "start", level: "warn", data: { dropped_count: dropped.length } });
    expect(notes[0]!.message).toContain("X-Accel-Redirect");
    expect(notes[0]!.message).toContain("X-Flow-*");
    const shown = (notes[0]!.data as { dropped_headers: string[] }).dropped_headers;
    // The first 20 names (in the order the stored output keeps them).
    expect(shown).toHaveLength(20);
    expect(dropped).toEqual(expect.arrayContaining(shown));
    for (const value of ["/internal/operator-only", "/etc/passwd", "svc_session=flow-chosen", "evil.example"]) {
      expect(JSON.stringify(notes), value).not.toContain(value);
    }
  });

  it("redirects only to relative locations and the trigger's redirect_hosts: another host answers 502 hook_redirect_refused", async () => {
    /** A sync hook whose flow answers 302 to the request's `to`. */
    const redirecting = async (redirect_hosts?: string[]) => {
      const definition = flow(
        [
          {
            id: "answer",
            type: "transform",
            config: { expression: '{"status_code": 302, "body": {}, "headers": {"Location": body.to}}' },
          },
        ],
        [["start", "answer"]],
      );
      definition.nodes[0] = {
        id: "start",
        type: "http_trigger",
        config: { mode: "sync", response: "output", ...(redirect_hosts ? { redirect_hosts } : {}) },
      } as (typeof definition.nodes)[0];
      const detail = await request(h.app)
        .get(`/api/flows/${await h.createFlow(definition)}`)
        .set("Cookie", h.cookie);
      return (to: string) => request(h.app).post(detail.body.hook.path).send({ to });
    };
    const plain = await redirecting();
    for (const to of ["/orders/42", "thanks?id=1", "?page=2", "#done"]) {
      const res = await plain(to);
      expect([res.status, res.headers.location], to).toEqual([302, to]);
    }
    for (const to of [
      "https://evil.example/login",
      "//evil.example/login",
      "/\\evil.example/login",
      " //evil.example",
      "javascript:alert(1)",
      "https://hook.invalid/x",
    ]) {
      const res = await plain(to);
      expect([res.status, res.body.code], to).toEqual([502, "hook_redirect_refused"]);
      expect(res.body).toMatchObject({
        error: expect.stringContaining(
          "a hook redirects only to a relative location or to a host of its trigger's redirect_hosts",
        ),
        run_id: expect.stringMatching(/^run_/),
        status_url: expect.stringMatching(/^\/api\/runs\/run_/),
      });
      expect(res.headers.location, to).toBeUndefined();
      // The run itself succeeded: only its answer is refused.
      expect((await h.waitForEnd(res.body.run_id)).status).toBe("success");
    }

    const allowed = await redirecting(["shop.example", "*.pay.example:8443"]);
    for (const to of ["https://shop.example/thanks", "http://shop.example/", "https://eu.pay.example:8443/ok"]) {
      const res = await allowed(to);
      expect([res.status, res.headers.location], to).toEqual([302, to]);
    }
    for (const to of ["https://shop.example:8443/", "https://evil.example/", "https://pay.example:8443/"]) {
      expect((await allowed(to)).body.code, to).toBe("hook_redirect_refused");
    }
  });

  it("sandboxes every answer (the flow's own, 202s, errors), whatever headers the flow sets", async () => {
    const sandboxed = {
      "content-security-policy":
        "sandbox; default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    };
    const page = flow(
      [
        {
          id: "answer",
          type: "set",
          config: {
            fields: {
              status_code: 200,
              body: "<form action='/api/hooks/elsewhere' method='post'><input name='password'></form>",
              headers: {
                "Content-Type": "text/html",
                "Content-Security-Policy": "default-src *; form-action *",
                "content-security-policy-report-only": "default-src *",
                "X-Content-Type-Options": "sniff",
                "X-Frame-Options": "ALLOWALL",
                "X-Run-Id": "run_forged",
                "X-Flow-Page": "yes",
              },
            },
          },
        },
      ],
      [["start", "answer"]],
    );
    page.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { methods: ["GET"], mode: "sync", response: "output" },
    } as (typeof page.nodes)[0];
    const pageFlow = await request(h.app)
      .get(`/api/flows/${await h.createFlow(page)}`)
      .set("Cookie", h.cookie);
    const answer = await request(h.app).get(pageFlow.body.hook.path);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.headers["x-flow-page"]).toBe("yes");
    expect(answer.headers["x-run-id"]).toMatch(/^run_(?!forged)/);
    expect(answer.headers["content-security-policy-report-only"]).toBeUndefined();
    expect(answer.headers).toMatchObject(sandboxed);

    const { path } = await hookFlow({ type: "http_trigger", config: { methods: ["POST"] } });
    const answers = {
      accepted: await request(h.app).post(path).send({}),
      wrongMethod: await request(h.app).put(path).send({}),
      badJson: await request(h.app).post(path).set("Content-Type", "application/json").send("{oops"),
      noHook: await request(h.app).post("/api/hooks/hk_00000000000000000000000000000000").send({}),
      noToken: await request(h.app).get("/api/hooks/"),
    };
    expect(Object.values(answers).map((res) => res.status)).toEqual([202, 405, 400, 404, 404]);
    for (const [name, res] of Object.entries(answers)) expect(res.headers, name).toMatchObject(sandboxed);
  });

  it("keeps a dedupe key for its window only: a repeat after the window starts a new run", async () => {
    const { flowId, path } = await hookFlow({ type: "webhook", config: { dedupe: { window: "1s" } } });
    const first = await request(h.app).post(path).set("Idempotency-Key", "evt-window").send({});
    const repeat = await request(h.app).post(path).set("Idempotency-Key", "evt-window").send({});
    expect([first.status, repeat.status]).toEqual([202, 202]);
    expect(repeat.body).toMatchObject({ run_id: first.body.run_id, deduplicated: true });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const later = await request(h.app).post(path).set("Idempotency-Key", "evt-window").send({});
    expect(later.status).toBe(202);
    expect(later.body.deduplicated).toBe(false);
    expect(later.body.run_id).not.toBe(first.body.run_id);
    expect(await runsOf(flowId)).toBe(2);
    // The first run keeps its record, only the key moved on.
    expect((await h.waitForEnd(first.body.run_id)).status).toBe("success");
  });

  it("limits requests per flow and minute, refused and repeated ones included (429 with Retry-After)", async () => {
    const { flowId, path } = await hookFlow({ type: "http_trigger" });
    const limited = createApp(otherApp({ HOOK_RATE_LIMIT: "4", TEMPORAL_TASK_QUEUE: h.taskQueue }).deps);
    const post = (headers: Record<string, string> = {}) => request(limited).post(path).set(headers).send({});
    // The counts start again each minute: not in the last seconds of one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const statuses = [];
    statuses.push(await post());
    // Refused (the trigger takes POST only) and repeated (same dedupe key) requests count too.
    statuses.push(await request(limited).put(path).send({}));
    statuses.push(await post({ "Idempotency-Key": "evt-limit" }));
    statuses.push(await post({ "Idempotency-Key": "evt-limit" }));
    statuses.push(await post());
    statuses.push(await request(limited).put(path).send({}));
    statuses.push(await post({ "Idempotency-Key": "evt-limit" }));
    expect(statuses.map((r) => r.status)).toEqual([202, 405, 202, 202, 429, 429, 429]);
    expect(statuses[3]!.body.deduplicated).toBe(true);
    expect(statuses[4]!.body.code).toBe("rate_limited");
    expect(Number(statuses[4]!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // The request refused for the limit started no run.
    expect(await runsOf(flowId)).toBe(2);
  });
});
