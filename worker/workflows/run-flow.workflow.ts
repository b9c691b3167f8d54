// A run of a flow: nodes start as soon as all their parents are resolved, so independent
// branches run in parallel. Each node is one activity named after its type; delays are durable
// timers; waits wait for an update (and a timer); loops and agents are child workflows.
// Deterministic: no I/O here, only activities, timers and handlers. The parts live in run-flow/:
// the run's state, node dispatch, waiting nodes, child runs, failures and the run's end.
import { REPLAY_NO_RECORDING, type RunFlowInput, type RunFlowResult } from "../../core/contracts/run-flow.js";
import { edgeActive } from "../../core/flows/node-input.js";
import { bookkeeping } from "./run-flow/activity-options.js";
import { endsRun } from "./run-flow/activity-input.js";
import { releaseSlot, takeSlot } from "./run-flow/concurrency-slot.js";
import { awaitDebounceWindow } from "./run-flow/debounce-window.js";
import { carriesRows, launchNode, waitsOnServer } from "./run-flow/node-dispatch.js";
import { endRun } from "./run-flow/run-end.js";
import { createRunState, handOver, type RunState } from "./run-flow/run-state.js";
import { handleWaitDecisions } from "./wait-decisions.js";

export async function runFlow(input: RunFlowInput): Promise<RunFlowResult> {
  // A run that opened a debounce window runs with the last input the window took, once it closed.
  const { run, cancelled } = input.debounce ? await awaitDebounceWindow(input) : { run: input, cancelled: false };
  const state = createRunState(run);
  state.cancelled = cancelled;
  handleWaitDecisions(state.waits);
  // A flow with concurrency or a throttle: no node starts before the run's gate grants it a slot,
  // unless its start took one in the database (freed by the statement that ends its record).
  const gated = (run.definition.concurrency || run.definition.throttle) && !state.cancelled && !run.dbSlot;
  const gateId = gated ? await takeSlot(state) : undefined;
  try {
    // After a failure or a cancellation no node starts; those running finish first.
    for (;;) {
      if (!state.failure && !state.cancelled) startReadyNodes(state);
      if (state.inflight.size === 0) break;
      // Set before any node can settle: nothing runs between here and the launches above.
      await new Promise<void>((resolve) => (state.wake = resolve));
    }
    return await endRun(state);
  } finally {
    // Once the run's record is final, whatever its end.
    if (gateId) await releaseSlot(gateId, run.runId);
  }
}

/**
 * Starts every node whose parents are resolved; a node none of whose incoming edges is active
 * (a parent skipped, or a branch not taken) is skipped, and a node a retry takes over is done.
 */
function startReadyNodes(state: RunState): void {
  const { run, outcomes, inflight } = state;
  const outcomeOf = (id: string) => outcomes.get(id);
  const ready: string[] = [];
  for (const id of state.order) {
    if (outcomes.has(id) || inflight.has(id)) continue;
    const parents = state.graph.parents.get(id)!;
    if (!parents.every((parent) => outcomes.has(parent))) continue;
    const reuse = run.reuse?.[id];
    if (reuse) {
      outcomes.set(id, { state: "done", output: reuse.output, ...(reuse.branch ? { branch: reuse.branch } : {}) });
      state.reused.push({ nodeId: id, type: run.plan[id]!.type, output: reuse.output, branch: reuse.branch });
    } else if (parents.length === 0 || (state.incoming.get(id) ?? []).some((edge) => edgeActive(edge, outcomeOf))) {
      if (run.given?.[id]) takeGiven(state, id);
      else ready.push(id);
    } else outcomes.set(id, { state: "skipped" });
  }
  // Only a replay's node with no recording fails during the walk: then nothing more starts.
  if (state.failure) return;
  for (const id of ready) {
    // The first regular node started writes the rows of the local nodes before it.
    const carried = state.unwritten.length > 0 && carriesRows(state, id) ? handOver(state) : undefined;
    launchNode(state, id, ready.length === 1 ? endsRun(state, id) : undefined, carried);
  }
  // Rows of local nodes are not left unwritten while the run waits on the server (a regular
  // node, a timer, a child): they are written now, in this workflow task.
  if (state.unwritten.length > 0 && [...inflight].some((id) => waitsOnServer(state, id))) {
    const rows = handOver(state);
    void bookkeeping.recordSteps({ runId: run.runId, steps: rows }).catch(() => undefined);
  }
}

/**
 * A replay's node that reaches outside: it takes the recorded output and is recorded as carried
 * over; one with no recorded output fails the run (REPLAY_NO_RECORDING) and never runs.
 */
function takeGiven(state: RunState, id: string): void {
  const given = state.run.given![id]!;
  const type = state.run.plan[id]!.type;
  if (!("output" in given)) {
    state.failure ??= {
      node_id: id,
      type: REPLAY_NO_RECORDING,
      message: `${REPLAY_NO_RECORDING}: the replayed run has no recorded output for node ${id} (${type}), which reaches outside and is never run in a replay`,
    };
    state.outcomes.set(id, { state: "failed" });
    return;
  }
  state.outcomes.set(id, { state: "done", output: given.output, ...(given.branch ? { branch: given.branch } : {}) });
  state.reused.push({ nodeId: id, type, output: given.output, branch: given.branch });
}
