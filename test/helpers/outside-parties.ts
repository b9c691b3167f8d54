// The outside parties of a run's test, on loopback: an upstream API answering every call with one
// JSON body and counting the calls, and a webhook receiver keeping each delivered body, with the
// webhook dispatcher running for the harness's task queue. Registered as the file's hooks.
import { afterAll, beforeAll } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { startDispatcher } from "../../worker/webhooks/dispatcher.js";
import { testConfig, testPrisma, testSeal } from "./context.js";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server.js";
import type { useRunHarness } from "./runs.js";

export interface OutsideParties {
  /** The upstream's address (http://127.0.0.1:<port>), once the file's hooks ran. */
  readonly upstreamUrl: string;
  /** Calls the upstream answered. */
  readonly upstreamCalls: number;
  /** The receiver's address. */
  readonly receiverUrl: string;
  /** The bodies delivered to the receiver, in order. */
  readonly delivered: string[];
}

export function useOutsideParties(
  h: ReturnType<typeof useRunHarness>,
  config: Record<string, string>,
  upstreamBody: unknown,
): OutsideParties {
  let upstream: LoopbackServer | undefined;
  let receiver: LoopbackServer | undefined;
  let upstreamCalls = 0;
  const delivered: string[] = [];
  let stopDispatcher: (() => void) | undefined;
  beforeAll(async () => {
    upstream = await startLoopbackServer((_req, res) => {
      upstreamCalls++;
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(upstreamBody));
    });
    receiver = await startLoopbackServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        delivered.push(body);
        res.writeHead(204).end();
      });
    });
    const dispatcherConfig = testConfig({ ...config, TEMPORAL_TASK_QUEUE: h.taskQueue });
    stopDispatcher = startDispatcher(
      { prisma: testPrisma(), clock: systemClock, temporal: h.deps.temporal, config: dispatcherConfig, seal: testSeal },
      dispatcherConfig.WEBHOOK_DISPATCH_INTERVAL,
    );
  });
  afterAll(() => {
    stopDispatcher?.();
    upstream?.close();
    receiver?.close();
  });
  const started = (server: LoopbackServer | undefined) => {
    if (!server) throw new Error("the outside parties start in the file's beforeAll");
    return server;
  };
  return {
    get upstreamUrl() {
      return started(upstream).url;
    },
    get upstreamCalls() {
      return upstreamCalls;
    },
    get receiverUrl() {
      return started(receiver).url;
    },
    delivered,
  };
}
