// Every workflow the worker registers. Deterministic code only: no I/O, no Node built-ins.
export { probe } from "./probe.workflow.js";
export { runFlow } from "./run-flow.workflow.js";
export { deliverWebhook } from "./deliver-webhook.workflow.js";
export { scheduledRun } from "./scheduled-run.workflow.js";
export { agentRun } from "./agent-run.workflow.js";
export { testNode } from "./node-test.workflow.js";
export { bulkRerun } from "./bulk-rerun.workflow.js";
export { concurrencyGate } from "./concurrency-gate.workflow.js";
