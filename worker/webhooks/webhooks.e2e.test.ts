// Outgoing webhooks end to end: settings API, the outbox dispatcher, deliverWebhook workflows on a
// real worker and dev server, and a receiver on loopback that verifies both signature schemes.
// Retry delays and the attempt limit are shortened through configuration.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { EVENT_TYPES, emitEvent } from "../../lib/events.js";
import { verifyStandardSignature, verifySvcSignature } from "../../core/webhooks/verify-example.js";
import { testConfig, testPrisma, testSeal } from "../../test/helpers/context.js";
import { createTestUser, joinWorkspace } from "../../test/helpers/identity.js";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { startDispatcher } from "./dispatcher.js";

interface Received {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const CONFIG = {
  EGRESS_ALLOWLIST: "127.0.0.1",
  WEBHOOK_RETRY_DELAYS: "300ms,600ms,900ms",
  WEBHOOK_TIMEOUT: "1s",
  WEBHOOK_DISPATCH_INTERVAL: "100ms",
};

const received: Received[] = [];
const hanging: ServerResponse[] = [];
const flakyCounts = new Map<string, number>();
let receiver: LoopbackServer;
let base: string;

beforeAll(async () => {
  receiver = await startLoopbackServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const path = req.url!;
      received.push({ path, at: Date.now(), headers: req.headers, body });
      if (path.startsWith("/flaky/")) {
        const count = (flakyCounts.get(path) ?? 0) + 1;
        flakyCounts.set(path, count);
        res.writeHead(count <= 2 ? 503 : 200).end(count <= 2 ? "not yet" : "ok");
      } else if (path === "/hang") {
        hanging.push(res);
      } else if (path === "/redirect") {
        res.writeHead(302, { Location: "/ok" }).end();
      } else {
        res.writeHead(204).end();
      }
    });
  });
  base = receiver.url;
});

afterAll(() => {
  for (const res of hanging) res.destroy();
  receiver.close();
});

const at = (path: string) => received.filter((r) => r.path === path);

describe("outgoing webhooks", () => {
  const h = useRunHarness({ config: CONFIG });
  let stopDispatcher: () => void;
  let secret: string;
  let endpointId: string;

  beforeAll(() => {
    const config = testConfig({ ...CONFIG, TEMPORAL_TASK_QUEUE: h.taskQueue });
    stopDispatcher = startDispatcher(
      { prisma: testPrisma(), clock: systemClock, temporal: h.deps.temporal, config, seal: testSeal },
      config.WEBHOOK_DISPATCH_INTERVAL,
    );
  });
  afterAll(() => stopDispatcher());

  const api = () => ({
    get: (path: string) => request(h.app).get(`/api/settings/webhooks${path}`).set("Cookie", h.cookie),
    post: (path: string, body: object = {}) =>
      request(h.app).post(`/api/settings/webhooks${path}`).set("Cookie", h.cookie).send(body),
    put: (path: string, body: object) =>
      request(h.app).put(`/api/settings/webhooks${path}`).set("Cookie", h.cookie).send(body),
  });

  const waitForDelivery = async (deliveryId: string, status: string, timeout = 30_000) => {
    let delivery: Record<string, unknown> = {};
    await expect
      .poll(
        async () => {
          delivery = (await api().get(`/deliveries/${deliveryId}`)).body;
          return delivery.status;
        },
        { timeout, interval: 100 },
      )
      .toBe(status);
    return delivery as {
      id: string;
      status: string;
      attempts: number;
      payload: unknown;
      attempt_log: Array<{
        number: number;
        started_at: string;
        duration_ms: number;
        status_code: number | null;
        error: string | null;
      }>;
    };
  };

  it("creates an endpoint and shows the new workspace secret once", async () => {
    const created = await api().post("/", { url: `${base}/ok`, description: "all events" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ url: `${base}/ok`, events: [...EVENT_TYPES], enabled: true });
    expect(created.body.secret).toMatch(/^whsec_/);
    secret = created.body.secret;
    endpointId = created.body.id;

    const second = await api().post("/", { url: `${base}/other`, events: ["agent.completed"], enabled: false });
    expect(second.status).toBe(201);
    expect(second.body.secret).toBeUndefined();
    const list = await api().get("/");
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([endpointId, second.body.id]);
    expect(list.body.secret).toMatchObject({ created_at: expect.any(String), rotated_at: null });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    // A page at a time, in the order they were created; every page tells of the secret.
    const first = await api().get("/?limit=1");
    const last = await api().get(`/?limit=1&cursor=${first.body.next_cursor}`);
    expect([first.body.items[0].id, last.body.items[0].id, last.body.next_cursor]).toEqual([
      endpointId,
      second.body.id,
      null,
    ]);
    expect(last.body.secret).toEqual(list.body.secret);
    expect((await api().get("/?cursor=e30")).body.code).toBe("bad_request");
  });

  it("refuses bad endpoints with clear errors, and non-admins with 403", async () => {
    for (const [body, message] of [
      [{ url: "ftp://example.com/x" }, /http or https/],
      [{ url: "http://user:pw@example.com/" }, /credentials/],
      [{ url: "http://10.0.0.5/hook" }, /private address/],
      [{ url: "http://169.254.169.254/latest" }, /cloud metadata/],
      [{ url: `${base}/ok`, events: ["run.exploded"] }, /events/],
      [{ url: `${base}/ok`, events: [] }, /events/],
    ] as const) {
      const res = await api().post("/", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBeDefined();
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    expect((await api().get("/whe_000000000000000000000000")).status).toBe(404);
    expect((await api().get("/not-an-id")).status).toBe(400);

    const editor = await createTestUser("webhook-editor");
    const { cookie } = await joinWorkspace(h.app, h.cookie, editor, "editor");
    const refused = await request(h.app).get("/api/settings/webhooks").set("Cookie", cookie);
    expect([refused.status, refused.body.code]).toEqual([403, "forbidden"]);
  });

  it("delivers every event type with the spec's body and both signatures", async () => {
    const okFlow = await h.createFlow(
      flow([{ id: "say", type: "log", config: { message: "hi" } }], [["start", "say"]]),
    );
    const failFlow = await h.createFlow(
      flow([{ id: "boom", type: "test_fail", config: { failures: 1, fatal: true } }], [["start", "boom"]]),
    );
    const ok = await h.runToEnd(okFlow, { n: 1 });
    const failed = await h.runToEnd(failFlow);
    expect([ok.status, failed.status]).toEqual(["success", "failed"]);
    const flowRes = await request(h.app).get(`/api/flows/${okFlow}`).set("Cookie", h.cookie);
    const updated = await request(h.app)
      .put(`/api/flows/${okFlow}`)
      .set("Cookie", h.cookie)
      .send({ version: flowRes.body.version, name: "Renamed" });
    expect(updated.status).toBe(200);
    // agent.completed comes from agents (a later issue); its delivery path is the same outbox.
    await emitEvent(testPrisma(), systemClock, h.workspaceId, "agent.completed", {
      agent_run_id: "agr_1",
      status: "success",
    });

    const expected = [
      ["run.started", ok.id],
      ["run.completed", ok.id],
      ["run.started", failed.id],
      ["run.failed", failed.id],
      ["flow.updated", okFlow],
      ["agent.completed", "agr_1"],
    ];
    const keyOf = (r: Received) => {
      const body = JSON.parse(r.body) as { event: string; data: Record<string, string> };
      return `${body.event} ${body.data.run_id ?? body.data.workflow_id ?? body.data.agent_run_id}`;
    };
    await expect
      .poll(() => at("/ok").map(keyOf).sort(), { timeout: 30_000, interval: 100 })
      .toEqual(expected.map(([e, id]) => `${e} ${id}`).sort());

    for (const delivery of at("/ok")) {
      const body = JSON.parse(delivery.body) as {
        event: string;
        timestamp: string;
        workspace_id: string;
        data: Record<string, unknown>;
      };
      expect(Object.keys(body)).toEqual(["event", "timestamp", "workspace_id", "data"]);
      expect(body.workspace_id).toBe(h.workspaceId);
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(delivery.headers["x-svc-event"]).toBe(body.event);
      expect(verifySvcSignature(secret, delivery.body, delivery.headers["x-svc-signature"] as string)).toBe(true);
      const standard = {
        id: delivery.headers["webhook-id"] as string,
        timestamp: delivery.headers["webhook-timestamp"] as string,
        signature: delivery.headers["webhook-signature"] as string,
      };
      expect(standard.id).toMatch(/^whd_/);
      expect(verifyStandardSignature(secret, delivery.body, standard)).toBe(true);
      // A receiver catches a body changed on the way.
      const tampered = delivery.body.replace(h.workspaceId, "ws_000000000000000000000000");
      expect(verifySvcSignature(secret, tampered, delivery.headers["x-svc-signature"] as string)).toBe(false);
      expect(verifyStandardSignature(secret, tampered, standard)).toBe(false);

      if (body.event.startsWith("run.")) {
        expect(Object.keys(body.data)).toEqual([
          "run_id",
          "workflow_id",
          "workflow_name",
          "status",
          "duration_ms",
          "started_at",
          "finished_at",
        ]);
        const run = body.data.run_id === ok.id ? ok : failed;
        const status = { "run.started": "running", "run.completed": "success", "run.failed": "failed" }[body.event];
        expect(body.data).toMatchObject({ status, started_at: run.started_at });
        expect(Number.isInteger(body.data.duration_ms)).toBe(true);
        if (body.event !== "run.started") {
          expect(body.data).toMatchObject({ duration_ms: run.duration_ms, finished_at: run.finished_at });
        }
      }
      if (body.event === "flow.updated") {
        expect(body.data).toMatchObject({ workflow_id: okFlow, workflow_name: "Renamed", changed: ["name"] });
      }
    }
    // The disabled endpoint subscribed to agent.completed got nothing.
    expect(at("/other")).toEqual([]);

    // Each attempt is recorded just after its POST is answered: the last may land a moment later.
    let items: Array<Record<string, unknown> & { status: string }> = [];
    await expect
      .poll(
        async () => {
          const log = await api().get(`/${endpointId}/deliveries?limit=50`);
          expect(log.status).toBe(200);
          items = log.body.items;
          return items.map((item) => item.status);
        },
        { timeout: 10_000, interval: 100 },
      )
      .toEqual(Array(6).fill("succeeded"));
    for (const item of items) {
      expect(item).toMatchObject({ status: "succeeded", attempts: 1, next_attempt_at: null });
      expect(item.attempt_log).toEqual([
        expect.objectContaining({ number: 1, status_code: 204, error: null, duration_ms: expect.any(Number) }),
      ]);
    }
    const firstPage = await api().get(`/${endpointId}/deliveries?limit=4`);
    const secondPage = await api().get(`/${endpointId}/deliveries?limit=4&cursor=${firstPage.body.next_cursor}`);
    expect([firstPage.body.items.length, secondPage.body.items.length, secondPage.body.next_cursor]).toEqual([
      4,
      2,
      null,
    ]);
  });

  it("retries a failing receiver after the configured delays and records every attempt", async () => {
    const endpoint = await api().post("/", { url: `${base}/flaky/a`, events: ["agent.completed"] });
    const ping = await api().post(`/${endpoint.body.id}/ping`);
    expect(ping.status, JSON.stringify(ping.body)).toBe(202);
    expect(ping.body).toMatchObject({ event: "ping", status: "pending", payload: { event: "ping" } });
    const delivery = await waitForDelivery(ping.body.id, "succeeded");
    expect(delivery.attempts).toBe(3);
    expect(delivery.attempt_log.map((a) => [a.number, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
    expect(delivery.attempt_log[0]!.error).toMatch(/answered 503/);
    const times = at("/flaky/a").map((r) => r.at);
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(300);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(600);
    // One delivery: the same webhook-id on every attempt.
    expect(new Set(at("/flaky/a").map((r) => r.headers["webhook-id"]))).toEqual(new Set([ping.body.id]));
  });

  it("marks a delivery failed after exactly three retries when the receiver never answers", async () => {
    const endpoint = await api().post("/", { url: `${base}/hang`, events: ["agent.completed"] });
    const ping = await api().post(`/${endpoint.body.id}/ping`);
    const delivery = await waitForDelivery(ping.body.id, "failed", 40_000);
    expect(delivery.attempts).toBe(4);
    expect(delivery.attempt_log).toHaveLength(4);
    for (const attempt of delivery.attempt_log) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/within 1000 ms/);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(900);
    }
    expect(at("/hang")).toHaveLength(4);
  });

  it("counts a redirect as a failed attempt instead of following it", async () => {
    const endpoint = await api().post("/", { url: `${base}/redirect`, events: ["agent.completed"] });
    const okBefore = at("/ok").length;
    const ping = await api().post(`/${endpoint.body.id}/ping`);
    const delivery = await waitForDelivery(ping.body.id, "failed", 30_000);
    expect(delivery.attempt_log.map((a) => a.status_code)).toEqual([302, 302, 302, 302]);
    expect(at("/ok")).toHaveLength(okBefore);
  });

  it("signs with the old and the new secret during the grace period after a rotation", async () => {
    const rotated = await api().post("/secret/rotate");
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const before = at("/ok").length;
    const ping = await api().post(`/${endpointId}/ping`);
    await waitForDelivery(ping.body.id, "succeeded");
    const delivery = at("/ok")[before]!;
    const standard = {
      id: delivery.headers["webhook-id"] as string,
      timestamp: delivery.headers["webhook-timestamp"] as string,
      signature: delivery.headers["webhook-signature"] as string,
    };
    expect(standard.signature.split(" ")).toHaveLength(2);
    expect(verifyStandardSignature(rotated.body.secret, delivery.body, standard)).toBe(true);
    expect(verifyStandardSignature(secret, delivery.body, standard)).toBe(true);
    expect(verifySvcSignature(rotated.body.secret, delivery.body, delivery.headers["x-svc-signature"] as string)).toBe(
      true,
    );
    expect(verifySvcSignature(secret, delivery.body, delivery.headers["x-svc-signature"] as string)).toBe(false);
    secret = rotated.body.secret;
  });

  it("redelivers a delivery's payload as a new delivery", async () => {
    const log = await api().get(`/${endpointId}/deliveries?limit=1`);
    const original = log.body.items[0];
    const before = at("/ok").length;
    const again = await api().post(`/deliveries/${original.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.id).not.toBe(original.id);
    expect(again.body).toMatchObject({ redelivery_of: original.id, event: original.event, payload: original.payload });
    await waitForDelivery(again.body.id, "succeeded");
    const sent = at("/ok")[before]!;
    expect(JSON.parse(sent.body)).toEqual(original.payload);
    expect(sent.headers["webhook-id"]).toBe(again.body.id);
    expect((await api().post("/deliveries/whd_000000000000000000000000/redeliver")).status).toBe(404);
  });

  it("updates and deletes endpoints; a disabled endpoint gets no events and no pings", async () => {
    const updated = await api().put(`/${endpointId}`, { enabled: false, events: ["run.completed"] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ enabled: false, events: ["run.completed"] });
    expect((await api().post(`/${endpointId}/ping`)).status).toBe(409);
    const before = at("/ok").length;
    const flowId = await h.createFlow(flow([{ id: "say", type: "log", config: { message: "x" } }], [["start", "say"]]));
    await h.runToEnd(flowId);
    // Give the dispatcher several passes, then check nothing went out.
    await expect
      .poll(() => testPrisma().event.count({ where: { workspaceId: h.workspaceId, dispatchedAt: null } }))
      .toBe(0);
    expect(at("/ok")).toHaveLength(before);

    const deleted = await request(h.app).delete(`/api/settings/webhooks/${endpointId}`).set("Cookie", h.cookie);
    expect(deleted.status).toBe(200);
    expect((await api().get(`/${endpointId}`)).status).toBe(404);
    expect(await testPrisma().webhookDelivery.count({ where: { endpointId } })).toBe(0);
  });
});
