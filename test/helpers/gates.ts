// What the flow-control tests read of a run and its gate: a one-node flow that sleeps in its
// activity with the given flow-control settings, the nap steps of runs, and the order in which a
// gate granted its slots (its history's signals to runs).
import type { Client } from "@temporalio/client";
import { testPrisma } from "./context.js";
import { flow } from "./runs.js";

/** A flow whose one node (`nap`) sleeps `ms` in its activity, with the given flow-control settings. */
export const sleeperFlow = (ms: number, settings: object) => ({
  ...flow([{ id: "nap", type: "test_sleep", config: { ms } }], [["start", "nap"]]),
  ...settings,
});

/** The nap steps of `runIds`, by run id. */
export async function napSteps(runIds: string[]) {
  const rows = await testPrisma().runStep.findMany({ where: { runId: { in: runIds }, nodeId: "nap" } });
  return new Map(rows.map((row) => [row.runId, row]));
}

/** The runs the gate `gateId` granted a slot (or a start) to, in order. */
export async function grantOrder(temporal: Client, gateId: string): Promise<string[]> {
  const history = await temporal.workflow.getHandle(gateId).fetchHistory();
  return history
    .events!.map((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)
    .filter((a) => a?.signalName === "slotGranted")
    .map((a) => a!.workflowExecution!.workflowId!);
}
