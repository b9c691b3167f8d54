// A run that opened a debounce window (docs/engine.md, "Debounce windows"): before anything else
// it waits until no start of its flow and key came for the flow's period, or its longest wait has
// passed, then runs with the last input its window took (core/runs/start/debounce.ts). Each time
// its timer fires it reads the window from the database: no signal to lose, and the history grows
// with the periods waited, never with the starts (at most two checks per period, and at most
// FLOW_LIMITS.maxDebounceWaitPeriods periods).
import {
  CancellationScope,
  isCancellation,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
} from "@temporalio/workflow";
import type { RunFlowInput } from "../../../core/contracts/run-flow.js";
import type { DebounceActivities } from "../../activities/debounce.activities.js";

// One transaction each, run by this worker; retried until the database answers.
const { checkDebounceWindow, dropDebounceWindow } = proxyLocalActivities<DebounceActivities>({
  startToCloseTimeout: "1 minute",
  localRetryThreshold: "10 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

/**
 * Beyond this many checks the window is closed at once (a clock gone wrong cannot hold a run):
 * two per period of the longest wait (FLOW_LIMITS.maxDebounceWaitPeriods, 100), and a few more.
 */
const MAX_CHECKS = 2 * 100 + 4;

/**
 * The run as it runs once its window closed (with the window's last input), and whether it was
 * cancelled while waiting (then its window is dropped: the next start opens a new run).
 */
export async function awaitDebounceWindow(run: RunFlowInput): Promise<{ run: RunFlowInput; cancelled: boolean }> {
  const debounce = run.debounce!;
  const window = { flowId: run.flowId, runId: run.runId, ...debounce };
  setCurrentDetails("debouncing: waiting until no start of this flow and key came for its debounce period");
  try {
    let waitMs = debounce.periodMs;
    for (let check = 0; ; check++) {
      await sleep(waitMs);
      const outcome = await checkDebounceWindow({ ...window, ...(check >= MAX_CHECKS ? { force: true } : {}) });
      if (outcome.closed) {
        setCurrentDetails("");
        return { run: { ...run, input: outcome.input ?? run.input }, cancelled: false };
      }
      waitMs = outcome.waitMs;
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() =>
      dropDebounceWindow({ flowId: run.flowId, keyHash: debounce.keyHash, runId: run.runId }),
    );
    setCurrentDetails("");
    return { run, cancelled: true };
  }
}
