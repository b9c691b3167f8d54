// npm run bench:webhooks: outgoing webhook deliveries per second to a loopback receiver, with
// 1,000 events queued in the outbox before the dispatcher starts, and the signing cost per
// delivery (both signature schemes).
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime, Worker } from "@temporalio/worker";
import { newUserSchema } from "../api/routes/users/users.schema.js";
import { createUserWithWorkspace } from "../api/routes/users/users.service.js";
import { systemClock } from "../lib/clock.js";
import { parseConfig } from "../lib/config.js";
import { createPrismaClient } from "../lib/db.js";
import { eventRecord } from "../lib/events.js";
import { newId } from "../lib/ids.js";
import { locateTemporalCli, startTemporalDevServer } from "../lib/infra/temporal.js";
import { deliveryHeaders, generateWebhookSecret } from "../lib/webhooks/signing.js";
import { createActivities } from "../worker/activities/index.js";
import { SEARCH_ATTRIBUTES } from "../worker/contracts/run-flow.js";
import { builtinNodes } from "../worker/nodes/index.js";
import { createNodeRegistry } from "../worker/nodes/registry.js";
import { dispatchEvents } from "../worker/webhooks/dispatcher.js";
import { benchDatabase } from "./helpers/database.js";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000" } } });
const EVENTS = Math.min(Number(values.events) || 1000, 20_000);

Runtime.install({ logger: new DefaultLogger("ERROR") });

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

const db = await benchDatabase();
const temporalServer = await startTemporalDevServer({
  cli: await locateTemporalCli(),
  uiPort: false,
  searchAttributes: Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((name) => [name, "Keyword" as const])),
});
const config = parseConfig({
  DATABASE_URL: db.url,
  TEMPORAL_ADDRESS: temporalServer.address,
  TEMPORAL_TASK_QUEUE: `bench-${randomUUID()}`,
  LOG_LEVEL: "silent",
  EGRESS_ALLOWLIST: "127.0.0.1",
});
const prisma = createPrismaClient(config.DATABASE_URL, { maxConnections: 20 });
const nativeConnection = await NativeConnection.connect({ address: temporalServer.address });
const worker = await Worker.create({
  connection: nativeConnection,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowsPath: new URL("../worker/workflows/index.ts", import.meta.url).pathname,
  activities: createActivities({ prisma, clock: systemClock, nodes: createNodeRegistry(builtinNodes), config }),
  maxConcurrentActivityTaskExecutions: 200,
});
const workerRun = worker.run();
const temporal = new Client({ connection: await Connection.connect({ address: temporalServer.address }) });

try {
  const user = newUserSchema.parse({
    email: "bench@example.com",
    password: "bench-password-1",
    name: "B",
    workspace: "B",
  });
  const { workspace } = await createUserWithWorkspace(prisma, user, { iterations: 100_000 });
  const workspaceId = workspace.workspaceId;
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
  while (dispatched < EVENTS) dispatched += await dispatchEvents({ prisma, clock: systemClock, temporal, config });
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
  if (worker.getState() === "RUNNING") worker.shutdown();
  await workerRun.catch((error: unknown) => console.error("worker stopped:", error));
  await nativeConnection.close();
  await temporal.connection.close();
  await prisma.$disconnect();
  receiver.close();
  await temporalServer.stop();
  await db.close();
}
