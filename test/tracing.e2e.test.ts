// OpenTelemetry tracing across processes: the API and the worker run as their own processes with
// OTEL_EXPORTER_OTLP_ENDPOINT set to a loopback OTLP/HTTP receiver; one trace must run from the
// caller's traceparent through the API request, Temporal's workflow and activity spans, to the
// outgoing HTTP call of an http_request node, whose callee receives the trace in traceparent.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../scripts/infra/process.js";
import { createTestUser, TEST_PASSWORD } from "./helpers/identity.js";
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { cleanEnv, loginOverHttp, startApiAndWorker, type Spawned } from "./helpers/processes.js";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

describe("tracing", () => {
  const spawned: Spawned[] = [];
  const closers: Array<() => void> = [];
  afterAll(() => {
    for (const process of spawned) if (process.child.exitCode === null) process.child.kill("SIGKILL");
    for (const close of closers) close();
  });

  it("carries one trace from the caller through the API, the run, the node and its outgoing call", async () => {
    const spans: Array<OtlpSpan & { service: string }> = [];
    const collector = await startLoopbackServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        for (const resource of body.resourceSpans) {
          const service = resource.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue ?? "";
          for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
        }
        res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      });
    });
    closers.push(collector.close);
    const calleeTraceparents: string[] = [];
    const callee = await startLoopbackServer((req, res) => {
      calleeTraceparents.push(String(req.headers.traceparent ?? ""));
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
    });
    closers.push(callee.close);

    const port = await freePort();
    const env = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: `traced-${randomUUID()}`,
      PORT: String(port),
      EGRESS_ALLOWLIST: "127.0.0.1",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      LOG_LEVEL: "error",
      WEBHOOK_DISPATCHER: "false",
    });
    const { base } = await startApiAndWorker(env, spawned);

    const user = await createTestUser("traced");
    const cookie = await loginOverHttp(base, user.email, TEST_PASSWORD);
    const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: cookie, ...headers },
        body: JSON.stringify(body),
      });
    const created = await call("/api/flows", {
      name: "Traced",
      definition: {
        nodes: [
          { id: "start", type: "manual" },
          { id: "fetch", type: "http_request", config: { url: `${callee.url}/hello`, method: "GET" } },
        ],
        edges: [{ from: "start", to: "fetch" }],
      },
    });
    expect(created.status).toBe(201);
    const flowId = ((await created.json()) as { id: string }).id;

    const traceId = randomBytes(16).toString("hex");
    const started = await call(
      `/api/workflows/${flowId}/run`,
      { input: {} },
      {
        traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
      },
    );
    expect(started.status).toBe(201);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${base}/api/runs/${runId}`, { headers: { Cookie: cookie } })).json()) as {
              run: { status: string };
            }
          ).run.status,
        { timeout: 60_000 },
      )
      .toBe("success");

    // The callee saw the trace, and the spans of every part arrive with the same trace id.
    expect(calleeTraceparents).toHaveLength(1);
    expect(calleeTraceparents[0]).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
    const expected = [
      ["svc-api", /^POST \/api\/workflows\/:id\/run$/],
      ["svc-api", /^StartWorkflow:runFlow$/],
      ["svc-worker", /^RunWorkflow:runFlow$/],
      ["svc-worker", /^RunActivity:http_request$/],
      ["svc-worker", /^GET$/],
    ] as const;
    await expect
      .poll(
        () =>
          expected.every(([service, name]) =>
            spans.some((span) => span.traceId === traceId && span.service === service && name.test(span.name)),
          ),
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
  }, 180_000);
});
