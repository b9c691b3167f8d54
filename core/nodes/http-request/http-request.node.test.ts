// http_request through real runs: a real worker and dev server, a real HTTP server on loopback.
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: LoopbackServer;
let base: string;
const seen: Seen[] = [];
let flaky = 0;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = new URL(req.url!, "http://x").pathname;
      if (path === "/flaky" && flaky++ === 0) {
        res.writeHead(503).end("busy");
      } else if (path === "/missing") {
        res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"no such order"}');
      } else if (path === "/big") {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("y".repeat(5000));
      } else if (path === "/text") {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("plain words");
      } else {
        res.writeHead(200, { "Content-Type": "application/json", "X-Reply": "yes" });
        res.end(JSON.stringify({ received: body, path }));
      }
    });
  });
  base = server.url;
});

afterAll(() => server.close());

const takeSeen = () => seen.splice(0);
beforeEach(() => {
  seen.length = 0;
});

describe("http_request, with loopback allow-listed", () => {
  const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });

  it("sends method, query, headers and a JSON body, with an idempotency key per run and node", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "call",
            type: "http_request",
            config: {
              method: "POST",
              url: `${base}/orders/{{ input.id }}`,
              query: { expand: "items", page: 2 },
              headers: { "X-Api-Key": "k-1" },
              body: { id: "{{ input.id }}", qty: 3 },
            },
          },
        ],
        [["start", "call"]],
      ),
    );
    const run = await h.runToEnd(flowId, { id: "ord_7" });
    expect(run.status).toBe("success");
    expect(run.output).toMatchObject({
      status: 200,
      headers: expect.objectContaining({ "x-reply": "yes" }),
      body: { received: '{"id":"ord_7","qty":3}', path: "/orders/ord_7" },
    });
    const [request] = takeSeen();
    expect(request!.method).toBe("POST");
    const url = new URL(request!.url, base);
    expect(url.pathname).toBe("/orders/ord_7");
    expect(Object.fromEntries(url.searchParams)).toEqual({ expand: "items", page: "2" });
    expect(request!.headers["x-api-key"]).toBe("k-1");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["idempotency-key"]).toBe(`${run.id}:call`);
  });

  it("sends form and text bodies and reads text answers", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "form",
            type: "http_request",
            config: { method: "POST", url: `${base}/f`, body_type: "form", body: { a: "1 2", b: { c: true } } },
          },
          {
            id: "text",
            type: "http_request",
            config: { method: "PUT", url: `${base}/text`, body_type: "text", body: "hello" },
          },
        ],
        [
          ["start", "form"],
          ["form", "text"],
        ],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("success");
    expect(run.output).toMatchObject({ status: 200, body: "plain words" });
    const [form, text] = takeSeen();
    expect(form!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(form!.body).toBe("a=1+2&b=%7B%22c%22%3Atrue%7D");
    expect(text).toMatchObject({ method: "PUT", body: "hello" });
    expect(text!.headers["content-type"]).toMatch(/^text\/plain/);
  });

  it("retries a 503 and succeeds with the same idempotency key", async () => {
    flaky = 0;
    const flowId = await h.createFlow(
      flow(
        [{ id: "call", type: "http_request", config: { url: `${base}/flaky` }, retry: { initial_interval_ms: 100 } }],
        [["start", "call"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("success");
    const attempts = (await h.steps(run.id)).filter((s) => s.node_id === "call");
    expect(attempts.map((s) => [s.status, s.attempt])).toEqual([
      ["failed", 1],
      ["success", 2],
    ]);
    const keys = takeSeen().map((r) => r.headers["idempotency-key"]);
    expect(keys).toEqual([`${run.id}:call`, `${run.id}:call`]);
  });

  it("fails at once on a 404, with the answer in the error", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "call", type: "http_request", config: { url: `${base}/missing` } }], [["start", "call"]]),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/answered 404/);
    const steps = await h.steps(run.id);
    expect(steps.find((s) => s.node_id === "call")).toMatchObject({ status: "failed", attempt: 1 });
    expect(takeSeen()).toHaveLength(1);
  });

  it("returns error answers as output when asked not to fail on them", async () => {
    const flowId = await h.createFlow(
      flow(
        [{ id: "call", type: "http_request", config: { url: `${base}/missing`, fail_on_error_status: false } }],
        [["start", "call"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run).toMatchObject({ status: "success", output: { status: 404, body: { error: "no such order" } } });
    takeSeen();
  });

  it("fails without retrying when the answer is over the node's size cap", async () => {
    const flowId = await h.createFlow(
      flow(
        [{ id: "call", type: "http_request", config: { url: `${base}/big`, max_response_bytes: 1000 } }],
        [["start", "call"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/over the limit of 1000 bytes/);
    expect((await h.steps(run.id)).find((s) => s.node_id === "call")).toMatchObject({ attempt: 1 });
    expect(takeSeen()).toHaveLength(1);
  });
});

describe("http_request, with an empty allow-list", () => {
  const h = useRunHarness();

  it("refuses a loopback target without retrying, and the server sees nothing", async () => {
    const flowId = await h.createFlow(
      flow(
        [{ id: "call", type: "http_request", config: { url: `${base.replace("127.0.0.1", "0x7f.1")}/x` } }],
        [["start", "call"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/loopback address/);
    expect((await h.steps(run.id)).find((s) => s.node_id === "call")).toMatchObject({ status: "failed", attempt: 1 });
    expect(takeSeen()).toEqual([]);
  });
});
