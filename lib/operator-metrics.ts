// Operator metrics in Prometheus text format, on a port of their own (not the API's, so browsers
// and the public never reach them). The API and the worker each have a registry; the Temporal
// SDK's worker metrics have their own endpoint (TEMPORAL_METRICS_PORT, see worker/main.ts).
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { portRefusal } from "./port-refusal.js";

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createApiMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_api_" });
  return {
    registry,
    requests: new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "HTTP requests to the API by method, route pattern and status, with their duration",
      labelNames: ["method", "route", "status"] as const,
      buckets: SECONDS,
      registers: [registry],
    }),
    runsStarted: new Counter({
      name: "svc_runs_started_total",
      help: "Runs started, by trigger (api, http_trigger, webhook, schedule, loop, agent)",
      labelNames: ["trigger"] as const,
      registers: [registry],
    }),
  };
}

export function createWorkerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_worker_" });
  return {
    registry,
    runsStarted: new Counter({
      name: "svc_runs_started_total",
      help: "Runs started, by trigger (api, http_trigger, webhook, schedule, loop, agent)",
      labelNames: ["trigger"] as const,
      registers: [registry],
    }),
    runsFinished: new Counter({
      name: "svc_runs_finished_total",
      help: "Runs ended, by status",
      labelNames: ["status"] as const,
      registers: [registry],
    }),
    nodeDuration: new Histogram({
      name: "svc_node_duration_seconds",
      help: "Node attempts by node type and outcome, with their duration",
      labelNames: ["type", "status"] as const,
      buckets: SECONDS,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: "svc_webhook_delivery_attempts_total",
      help: "Outgoing webhook delivery attempts by outcome (succeeded, failed, gave_up)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    agentRuns: new Counter({
      name: "svc_agent_runs_finished_total",
      help: "Agent runs ended, by status",
      labelNames: ["status"] as const,
      registers: [registry],
    }),
    agentTokens: new Counter({
      name: "svc_agent_tokens_total",
      help: "Tokens used by agents' model calls, by direction (input, output)",
      labelNames: ["direction"] as const,
      registers: [registry],
    }),
    // Every model call that answered (ai.prompt nodes and agents), counted once per call.
    tokens: new Counter({
      name: "svc_ai_tokens_total",
      help: "Tokens of model calls, by workspace, flow (empty: an agent run of the API), model and direction (input, output)",
      labelNames: ["workspace", "flow", "model", "direction"] as const,
      registers: [registry],
    }),
    cost: new Counter({
      name: "svc_ai_cost_usd_total",
      help: "Cost of model calls in US dollars at the workspace's prices, by workspace, flow and model",
      labelNames: ["workspace", "flow", "model"] as const,
      registers: [registry],
    }),
  };
}

/** One gate's queue as the gauges read it (core/engine/gate-queues.ts). */
interface GateReading {
  flowId: string;
  gateId: string;
  queued: number;
  oldestWaitSeconds: number;
}

/** The gates' queues summed per flow: flows with runs waiting only. */
export function queuesPerFlow(gates: GateReading[]) {
  const flows = new Map<string, { flowId: string; queued: number; oldestWaitSeconds: number }>();
  for (const gate of gates) {
    if (gate.queued === 0) continue;
    const flow = flows.get(gate.flowId) ?? { flowId: gate.flowId, queued: 0, oldestWaitSeconds: 0 };
    flow.queued += gate.queued;
    flow.oldestWaitSeconds = Math.max(flow.oldestWaitSeconds, gate.oldestWaitSeconds);
    flows.set(gate.flowId, flow);
  }
  return [...flows.values()];
}

/**
 * svc_runs_queued and svc_runs_queued_oldest_seconds by flow, and svc_gate_runs_queued and
 * svc_gate_queued_oldest_seconds by flow and gate (one per key: its workflow id, never the key,
 * which is run data), read by `read` once per scrape (the gauges share the reading; a failed
 * reading leaves them empty rather than failing the scrape).
 */
export function registerQueueGauges(registry: Registry, read: () => Promise<GateReading[]>) {
  let reading: { at: number; gates: Promise<GateReading[]> } | undefined;
  const gates = () => {
    if (!reading || Date.now() - reading.at > 1000) reading = { at: Date.now(), gates: read().catch(() => []) };
    return reading.gates;
  };
  const queues = async () => queuesPerFlow(await gates());
  const waitingGates = async () => (await gates()).filter((gate) => gate.queued > 0);
  new Gauge({
    name: "svc_runs_queued",
    help: "Runs waiting at their flow's concurrency or throttle gate, by flow",
    labelNames: ["flow"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const queue of await queues()) this.set({ flow: queue.flowId }, queue.queued);
    },
  });
  new Gauge({
    name: "svc_runs_queued_oldest_seconds",
    help: "Seconds the oldest run waiting at its flow's gate has waited since it started, by flow",
    labelNames: ["flow"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const queue of await queues()) this.set({ flow: queue.flowId }, queue.oldestWaitSeconds);
    },
  });
  new Gauge({
    name: "svc_gate_runs_queued",
    help: "Runs waiting at one gate (one key of a flow), by flow and gate workflow id",
    labelNames: ["flow", "gate"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const gate of await waitingGates()) this.set({ flow: gate.flowId, gate: gate.gateId }, gate.queued);
    },
  });
  new Gauge({
    name: "svc_gate_queued_oldest_seconds",
    help: "Seconds the oldest run waiting at one gate has waited since it started, by flow and gate workflow id",
    labelNames: ["flow", "gate"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const gate of await waitingGates()) {
        this.set({ flow: gate.flowId, gate: gate.gateId }, gate.oldestWaitSeconds);
      }
    },
  });
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** Serves GET /metrics of `registry` on host:port (port 0: any free port). */
export async function serveMetrics(registry: Registry, host: string, port: number) {
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("GET /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { "Content-Type": "text/plain" }).end(error.message),
    );
  });
  server.listen(port, host);
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Scrapers keep connections alive: end them, or closing would wait for them.
        server.closeAllConnections();
      }),
  };
}

/**
 * serveMetrics for a server process: off when `port` is 0, and a busy port is logged rather than
 * fatal (metrics are for operators; the process itself must keep serving).
 */
export async function serveProcessMetrics(
  registry: Registry,
  options: {
    host: string;
    port: number;
    /** The configuration key of the port, named in the error. */
    setting: "API_METRICS_PORT" | "WORKER_METRICS_PORT";
    logger: { error(message: string): void };
  },
) {
  if (options.port === 0) return undefined;
  return serveMetrics(registry, options.host, options.port).catch((error: NodeJS.ErrnoException) => {
    options.logger.error(portRefusal(options.setting, options.host, options.port, error));
    return undefined;
  });
}
