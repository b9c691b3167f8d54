// send_webhook through real runs, to a receiver on loopback that checks the signature.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const SECRET = "whsec_test_1";
let server: LoopbackServer;
let base: string;
const received: Array<{ headers: IncomingHttpHeaders; body: string; validSignature: boolean }> = [];

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`);
      const given = Buffer.from(String(req.headers["x-svc-signature"] ?? ""));
      received.push({
        headers: req.headers,
        body,
        validSignature: given.length === expected.length && timingSafeEqual(given, expected),
      });
      if (req.url === "/reject") res.writeHead(400).end("bad payload");
      else if (req.url === "/echo") res.writeHead(202).end(`queued for ${String(req.headers["x-receiver-key"])}`);
      else res.writeHead(202).end("queued");
    });
  });
  base = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  received.length = 0;
});

describe("send_webhook", () => {
  const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });

  it("POSTs the node's input as JSON, signed with the secret", async () => {
    const flowId = await h.createFlow(
      flow(
        [{ id: "notify", type: "send_webhook", config: { url: `${base}/in`, secret: SECRET } }],
        [["start", "notify"]],
      ),
    );
    const run = await h.runToEnd(flowId, { order: "ord_1", total: 12.5 });
    expect(run).toMatchObject({ status: "success", output: { status: 202, ok: true, body: "queued" } });
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toEqual({ order: "ord_1", total: 12.5 });
    expect(received[0]!.validSignature).toBe(true);
    expect(received[0]!.headers["content-type"]).toBe("application/json");
    expect(received[0]!.headers["idempotency-key"]).toBe(`${run.id}:notify`);
  });

  it("sends a templated payload, unsigned without a secret", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "notify",
            type: "send_webhook",
            config: { url: `${base}/in`, payload: { text: "Order {{ input.order }} paid" } },
          },
        ],
        [["start", "notify"]],
      ),
    );
    const run = await h.runToEnd(flowId, { order: "ord_2" });
    expect(run.status).toBe("success");
    expect(JSON.parse(received[0]!.body)).toEqual({ text: "Order ord_2 paid" });
    expect(received[0]!.headers["x-svc-signature"]).toBeUndefined();
  });

  it("fails at once when the receiver refuses the payload with a 4xx", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "notify", type: "send_webhook", config: { url: `${base}/reject` } }], [["start", "notify"]]),
    );
    const run = await h.runToEnd(flowId, { x: 1 });
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/receiver answered 400/);
    expect(received).toHaveLength(1);
  });

  it("authenticates to the receiver with a stored credential, kept out of its output", async () => {
    const key = `rk-${Date.now()}-receiver-key`;
    const created = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", h.cookie)
      .send({ name: "Receiver key", type: "api_key", data: { name: "X-Receiver-Key", value: key } });
    expect(created.status).toBe(201);
    const flowId = await h.createFlow(
      flow(
        [{ id: "notify", type: "send_webhook", config: { url: `${base}/echo`, credential_id: created.body.id } }],
        [["start", "notify"]],
      ),
    );
    const run = await h.runToEnd(flowId, { x: 1 });
    expect(run).toMatchObject({ status: "success", output: { status: 202, body: "queued for [redacted]" } });
    expect(received[0]!.headers["x-receiver-key"]).toBe(key);
    expect(JSON.stringify(await h.steps(run.id))).not.toContain(key);
  });
});
