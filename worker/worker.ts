import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { DataConverter } from "@temporalio/common";
import { NativeConnection, Worker, type WorkerOptions } from "@temporalio/worker";
import { preloadedWorkflowModules } from "../core/engine/workflow-bundle.js";
import type { Activities } from "./activities/index.js";
import { HEARTBEAT_INTERVAL_MS, ITEMS_HEARTBEAT_MS } from "./activities/node.activities.js";

const require = createRequire(import.meta.url);

/** Whether this is the JavaScript `npm run build` compiled (dist/), not the sources under tsx. */
const compiled = import.meta.url.endsWith(".js");

/** Path of the workflows entry point, bundled by the worker at start when there is no prebuilt bundle. */
export const workflowsPath = require.resolve(compiled ? "./workflows/index.js" : "./workflows/index.ts");

/** The bundle `npm run build` writes beside the compiled worker (scripts/build.ts). */
export const prebuiltWorkflowBundlePath = fileURLToPath(new URL("./workflows.bundle.js", import.meta.url));

/**
 * Where the worker's workflow code comes from: the bundle it is handed (tests), else the file
 * WORKFLOW_BUNDLE names, else the prebuilt one of a compiled build, else a bundle made now. Plugins may add workflow interceptors
 * (tracing), which only a bundle made now takes in.
 */
function workflowSource(deps: WorkerDeps): Pick<WorkerOptions, "workflowBundle" | "workflowsPath" | "bundlerOptions"> {
  if (deps.workflowBundle) return { workflowBundle: deps.workflowBundle };
  if (deps.bundlePath && !deps.plugins?.length) return { workflowBundle: { codePath: deps.bundlePath } };
  if (compiled && !deps.plugins?.length && existsSync(prebuiltWorkflowBundlePath)) {
    return { workflowBundle: { codePath: prebuiltWorkflowBundlePath } };
  }
  return { workflowsPath, bundlerOptions: { preloadModules: preloadedWorkflowModules(workflowsPath) } };
}

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** The process's one data converter (core/engine/data-converter.ts): payloads sealed at rest. */
  dataConverter: DataConverter;
  /** A prebuilt bundle (tests build it once per run); otherwise the worker bundles workflowsPath. */
  workflowBundle?: WorkerOptions["workflowBundle"];
  /** WORKFLOW_BUNDLE: the file of a bundle built beforehand, used unless plugins are set. */
  bundlePath?: string;
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
    ...workflowSource(deps),
    shutdownGraceTime: deps.shutdownGraceTime ?? "10 seconds",
    // Activities without a heartbeat timeout (quick nodes, see run-flow.workflow.ts) still send
    // each heartbeat, which is how a cancellation reaches them: not held back the SDK's 30 s.
    defaultHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
    // A node running per item heartbeats its progress every second, and a cancellation comes back
    // in the answer: within about a second, not the 4/5 of its heartbeat timeout the SDK waits.
    maxHeartbeatThrottleInterval: ITEMS_HEARTBEAT_MS,
    plugins: deps.plugins ?? [],
    ...(deps.localActivitiesOnly ? { enableNonLocalActivities: false } : {}),
    ...(deps.slots
      ? { maxConcurrentWorkflowTaskExecutions: deps.slots, maxConcurrentLocalActivityExecutions: deps.slots }
      : {}),
  });
}
