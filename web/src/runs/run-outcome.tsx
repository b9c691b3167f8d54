// How a run ended badly, in words: the cancel, or the failure and the node it stopped at.
import type { RunDetail } from "../types";
import { errorText } from "./step-error";

/** The node a failed run stopped at, from its error ({ node_id, message }), if it names one. */
const failedNodeOf = (error: unknown): string | undefined => {
  const nodeId = (error as { node_id?: unknown } | null)?.node_id;
  return typeof nodeId === "string" ? nodeId : undefined;
};

export function RunOutcome({ run: r, labelOf }: { run: RunDetail; labelOf: (nodeId: string) => string }) {
  if (r.status === "cancelled") {
    return (
      <div className="notice run-cancelled" role="status">
        <strong>The run was cancelled</strong>
        {/* The engine's own words say no more than the heading; anything else is worth showing. */}
        {!/cancelled/i.test(errorText(r.error)) && <>: {errorText(r.error)}</>}
      </div>
    );
  }
  if (r.error === null || r.error === undefined) return null;
  const failedAt = failedNodeOf(r.error);
  return (
    <div className="run-error" role="alert">
      <strong>The run failed{failedAt ? ` at ${labelOf(failedAt)}` : ""}:</strong> {errorText(r.error)}
    </div>
  );
}
