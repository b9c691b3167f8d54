// Retry and cancel of the runs selected in the runs list: each run through its own endpoint, in
// turn, and what the list then says of it. The calls are handed in, so it is tested without a browser.
import { client, describeError } from "../api";

export type BulkAction = "retry" | "cancel";

export interface BulkOutcome {
  action: BulkAction;
  done: number;
  failed: Array<{ id: string; message: string }>;
}

/** One run's retry or cancel (POST /api/runs/{id}/retry or /cancel); throws what the API refuses. */
export async function callRunEndpoint(action: BulkAction, id: string): Promise<void> {
  const params = { path: { id } };
  await (action === "retry"
    ? client.POST("/api/runs/{id}/retry", { params })
    : client.POST("/api/runs/{id}/cancel", { params }));
}

/** Calls `call` for each run in turn (the API's own endpoint per run), collecting what failed. */
export async function actOnEach(
  action: BulkAction,
  ids: string[],
  call: (action: BulkAction, id: string) => Promise<void> = callRunEndpoint,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { action, done: 0, failed: [] };
  for (const id of ids) {
    try {
      await call(action, id);
      outcome.done++;
    } catch (error) {
      outcome.failed.push({ id, message: describeError(error) });
    }
  }
  return outcome;
}

/** What the list says once done: "Retried 2 runs.", or with those refused and why. */
export function outcomeText({ action, done, failed }: BulkOutcome): string {
  const verb = action === "retry" ? "Retried" : "Cancelled";
  const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
  const refused = failed.map((f) => `${f.id}: ${f.message}`).join("; ");
  return failed.length ? `${verb} ${runs(done)}; ${runs(failed.length)} not: ${refused}` : `${verb} ${runs(done)}.`;
}
