// OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go to an OTLP/HTTP
// collector. A span per API request (with the caller's traceparent as parent), Temporal's own
// spans through its OpenTelemetry plugin (StartWorkflow in the API, RunWorkflow per run and
// RunActivity per node in the worker, the context travelling in workflow headers), and a span
// per outgoing undici request (http_request nodes, http.call, webhook deliveries), which carries
// the trace on to the callee in `traceparent`.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OpenTelemetryPlugin } from "@temporalio/interceptors-opentelemetry";
import type { Config } from "./config.js";

export interface Tracing {
  /** Temporal's plugin: for the Client of the API and for Worker.create. */
  plugin: OpenTelemetryPlugin;
  /** Flushes the spans not yet exported. */
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/** Starts tracing for this process once (undefined when it is off). */
export function startTracing(
  config: Pick<Config, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_SERVICE_NAME">,
  component: "api" | "worker",
): Tracing | undefined {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  if (started) return started;
  const resource = new Resource({ "service.name": config.OTEL_SERVICE_NAME ?? `svc-${component}` });
  const exporter = new OTLPTraceExporter({ url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, "")}/v1/traces` });
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The global provider, W3C trace-context propagation and AsyncLocalStorage context.
  provider.register();
  registerInstrumentations({ tracerProvider: provider, instrumentations: [new UndiciInstrumentation()] });
  started = {
    plugin: new OpenTelemetryPlugin({ resource, spanProcessor }),
    shutdown: () => provider.shutdown(),
  };
  return started;
}

const tracer = () => trace.getTracer("svc");

/**
 * A server span for an HTTP request, child of the caller's `traceparent` when given, and a way to
 * run the handling inside it. A no-op span without tracing.
 */
export function startRequestSpan(request: { method: string; headers: Record<string, string | string[] | undefined> }): {
  span: Span;
  run: (handle: () => void) => void;
} {
  const parent = propagation.extract(context.active(), request.headers);
  const span = tracer().startSpan(`HTTP ${request.method}`, { kind: SpanKind.SERVER }, parent);
  const active = trace.setSpan(parent, span);
  return { span, run: (handle) => context.with(active, handle) };
}

export function endRequestSpan(span: Span, route: string, method: string, status: number) {
  span.updateName(`${method} ${route}`);
  span.setAttributes({ "http.request.method": method, "http.route": route, "http.response.status_code": status });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
