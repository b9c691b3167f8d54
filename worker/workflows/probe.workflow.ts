import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import type { ProbeInput, ProbeResult } from "../../core/contracts/index.js";

const { writeLogEntry } = proxyActivities<Activities>({
  startToCloseTimeout: "10 seconds",
  retry: { initialInterval: "1 second", maximumAttempts: 5 },
});

/** Writes a log entry through an activity: a health check of the whole chain. */
export async function probe(input: ProbeInput): Promise<ProbeResult> {
  const logEntryId = await writeLogEntry({ level: "info", message: input.message, data: { source: "probe" } });
  return { logEntryId };
}
