// The API's run starter (the run endpoint, hooks, retries); the worker's runs (schedule fires,
// loop children, agents' flow.run, error flows) start through child-runs.ts. pinFlow() checks
// the flow and pins its version (typed definition and plan), runFlowInput() gives the workflow
// its input (pinned-flow.ts); the worker's starters record the run in their own transaction and
// let the workflow start the child (child-runs.ts), the API's go through createRunStarter(),
// which records the run and starts its workflow (run-launch.ts), answering a repeated
// idempotency key with the run it started (keyed-start.ts).
import type { PinnedFlow } from "./pinned-flow.js";
import { startKeyedRun, type StartAnswer } from "./keyed-start.js";
import {
  KnownFlows,
  launch,
  type LaunchRequest,
  type RunStarterDeps,
  type StartRequest,
  type StartedRun,
} from "./run-launch.js";

export function createRunStarter(deps: RunStarterDeps) {
  const knownFlows = new KnownFlows();
  return {
    /** Records and starts a run of `flow` as pinned; undefined when the flow changed since. */
    launch: (flow: PinnedFlow, request: LaunchRequest): Promise<StartedRun | undefined> => launch(deps, flow, request),
    /**
     * Starts a run of the flow's current version; with an idempotency key already used, answers
     * the run that key started (`replayed`).
     */
    start: (request: StartRequest): Promise<StartAnswer> => startKeyedRun(deps, knownFlows, request),
  };
}
