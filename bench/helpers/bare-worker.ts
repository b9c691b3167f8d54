// The baseline's worker, a process of its own as the service's worker is: the bare workflow with
// three no-op activities on BARE_TASK_QUEUE, against TEMPORAL_ADDRESS, with the SDK's defaults but
// the service's data converter (SVC_ENCRYPTION_KEY), so that both sides pay for sealing payloads.
import { Runtime, DefaultLogger, Worker } from "@temporalio/worker";
import { parseKeyRing, type RingKey } from "../../lib/crypto/key-ring.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { connectTemporalWorker } from "../../lib/temporal/connection.js";

Runtime.install({ logger: new DefaultLogger("ERROR") });
const connection = await connectTemporalWorker({ TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  taskQueue: process.env.BARE_TASK_QUEUE!,
  workflowsPath: new URL("../workflows/bare.workflow.ts", import.meta.url).pathname,
  activities: { noop: async (value: unknown) => value },
  dataConverter: createDataConverter({
    SVC_ENCRYPTION_KEY: process.env.SVC_ENCRYPTION_KEY
      ? (parseKeyRing(process.env.SVC_ENCRYPTION_KEY) as RingKey[])
      : [],
  }),
});
try {
  await worker.run();
} finally {
  await connection.close();
}
