import { createRequire } from "node:module";
import type { DataConverter } from "@temporalio/common";
import { NativeConnection, Worker, type WorkerOptions } from "@temporalio/worker";
import type { Activities } from "./activities/index.js";
import { HEARTBEAT_INTERVAL_MS } from "./activities/node.activities.js";

const require = createRequire(import.meta.url);

/** Path of the workflows entry point, bundled by the worker at start. */
export const workflowsPath = require.resolve("./workflows/index.ts");

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** The process's one data converter (core/engine/data-converter.ts): payloads sealed at rest. */
  dataConverter: DataConverter;
  /** A prebuilt bundle (tests build it once per run); otherwise the worker bundles workflowsPath. */
  workflowBundle?: WorkerOptions["workflowBundle"];
  shutdownGraceTime?: WorkerOptions["shutdownGraceTime"];
  /** Temporal plugins, e.g. OpenTelemetry tracing. */
  plugins?: WorkerOptions["plugins"];
  /** Runs workflow tasks and local activities only: regular activities are left to other workers. */
  localActivitiesOnly?: boolean;
  /** Workflow tasks and local activities run at once (the SDK's defaults otherwise). */
  slots?: number;
}

export function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    activities: deps.activities,
    dataConverter: deps.dataConverter,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath }),
    shutdownGraceTime: deps.shutdownGraceTime ?? "10 seconds",
    // Activities without a heartbeat timeout (quick nodes, see run-flow.workflow.ts) still send
    // each heartbeat, which is how a cancellation reaches them: not held back the SDK's 30 s.
    defaultHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
    plugins: deps.plugins ?? [],
    ...(deps.localActivitiesOnly ? { enableNonLocalActivities: false } : {}),
    ...(deps.slots
      ? { maxConcurrentWorkflowTaskExecutions: deps.slots, maxConcurrentLocalActivityExecutions: deps.slots }
      : {}),
  });
}
