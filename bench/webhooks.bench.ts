// npm run bench:webhooks: outgoing webhook deliveries per second to a loopback receiver, with
// 1,000 events queued in the outbox before the dispatcher starts, and the signing cost per
// delivery (both signature schemes).
import { parseArgs } from "node:util";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "../lib/clock.js";
import { createJsonSeal } from "../lib/crypto/sealed-json.js";
import { eventRecord } from "../lib/events.js";
import { newId } from "../lib/ids.js";
import { deliveryHeaders, generateWebhookSecret } from "../core/webhooks/signing.js";
import { dispatchEvents } from "../worker/webhooks/dispatcher.js";
import { startBenchStack } from "./helpers/stack.js";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000" } } });
const EVENTS = Math.min(Number(values.events) || 1000, 20_000);

// Signing cost, alone: the headers of one delivery of a typical run event.
const secret = generateWebhookSecret();
const body = JSON.stringify({
  event: "run.completed",
  timestamp: new Date().toISOString(),
  workspace_id: "ws_0123456789abcdef01234567",
  data: {
    run_id: "run_0123456789abcdef01234567",
    workflow_id: "wf_0123456789abcdef01234567",
    workflow_name: "Order sync",
    status: "success",
    duration_ms: 1234,
    started_at: new Date().toISOString(),
    finished_at: new Date().toISOString(),
  },
});
const SIGNINGS = 20_000;
for (let i = 0; i < 1000; i++)
  deliveryHeaders({ event: "x", deliveryId: "whd_1", body, secrets: [secret], now: new Date() });
let t = performance.now();
for (let i = 0; i < SIGNINGS; i++) {
  deliveryHeaders({ event: "run.completed", deliveryId: "whd_1", body, secrets: [secret], now: new Date() });
}
const signUs = ((performance.now() - t) * 1000) / SIGNINGS;

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(204).end();
  });
});
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");

const stack = await startBenchStack({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });
const { prisma, client: temporal, config, workspaceId } = stack;

try {
  await prisma.webhookSecret.create({ data: { workspaceId, secret } });
  await prisma.webhookEndpoint.create({
    data: {
      id: newId("whe"),
      workspaceId,
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ["run.completed"],
    },
  });
  const events = Array.from({ length: EVENTS }, (_, i) =>
    eventRecord(systemClock, workspaceId, "run.completed", {
      run_id: `run_${i.toString(16).padStart(24, "0")}`,
      workflow_id: "wf_0123456789abcdef01234567",
      workflow_name: "Bench",
      status: "success",
      duration_ms: i,
      started_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
    }),
  );
  for (let i = 0; i < events.length; i += 500) await prisma.event.createMany({ data: events.slice(i, i + 500) });

  t = performance.now();
  let dispatched = 0;
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  while (dispatched < EVENTS)
    dispatched += await dispatchEvents({ prisma, clock: systemClock, temporal, config, seal });
  const dispatchSeconds = (performance.now() - t) / 1000;
  console.error(`dispatched ${dispatched} events in ${dispatchSeconds.toFixed(1)} s`);
  const deadline = Date.now() + Number(process.env.BENCH_DEADLINE_MS ?? 600_000);
  for (;;) {
    const done = await prisma.webhookDelivery.count({ where: { status: "succeeded" } });
    if (done >= EVENTS) break;
    if (Date.now() > deadline) {
      const errors = await prisma.webhookAttempt.groupBy({ by: ["error"], _count: true });
      throw new Error(`only ${done} of ${EVENTS} deliveries succeeded in 10 minutes: ${JSON.stringify(errors)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - t) / 1000;
  const failed = await prisma.webhookDelivery.count({ where: { status: { not: "succeeded" } } });
  console.log(`Outgoing webhooks: ${EVENTS} events queued, one endpoint on loopback`);
  console.table({
    "dispatch (outbox → deliveries + workflows started)": {
      seconds: dispatchSeconds.toFixed(2),
      "per second": (EVENTS / dispatchSeconds).toFixed(0),
    },
    "all delivered (2xx recorded)": { seconds: seconds.toFixed(2), "per second": (EVENTS / seconds).toFixed(1) },
  });
  console.log(`receiver saw ${received} requests; deliveries not succeeded: ${failed}`);
  console.log(`signing cost per delivery (X-SVC-Signature + webhook-signature): ${signUs.toFixed(1)} µs`);
} finally {
  receiver.close();
  await stack.close();
}
