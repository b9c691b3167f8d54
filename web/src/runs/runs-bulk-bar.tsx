// The bar over the runs list while runs are selected: retry the failed, cancel the running (after
// asking), rerun the ended on the latest version; and what the last retry or cancel did.
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../ui/confirm-dialog";
import type { BulkRerunBody } from "../components/flow-failures";
import type { RunSummary } from "../types";
import { unended } from "./run-progress";
import { actOnEach, outcomeText, type BulkAction, type BulkOutcome } from "./runs-bulk";
import { bulkTargets } from "./runs-view";

/** Retry and cancel for the selected runs: each run through its own endpoint (a cancel takes the runs below it too). */
export function RunsBulkBar({
  selected,
  onDone,
  canAct,
  onRerun,
}: {
  selected: RunSummary[];
  onDone: () => void;
  canAct: boolean;
  /** Starts a bulk rerun of the selected runs. */
  onRerun: (body: BulkRerunBody) => void;
}) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<BulkAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const targets = bulkTargets(selected);
  const ended = selected.filter((run) => !unended(run.status));
  const act = async (action: BulkAction) => {
    setAsking(null);
    setBusy(true);
    setOutcome(await actOnEach(action, targets[action]));
    setBusy(false);
    onDone();
    void queryClient.invalidateQueries({ queryKey: ["runs"] });
  };
  return (
    <>
      {selected.length > 0 && (
        <div className="toolbar bulk" role="group" aria-label="Selected runs">
          <strong>{selected.length} selected</strong>
          <button type="button" disabled={busy || targets.retry.length === 0} onClick={() => void act("retry")}>
            Retry failed ({targets.retry.length})
          </button>
          <button type="button" disabled={busy || targets.cancel.length === 0} onClick={() => setAsking("cancel")}>
            Cancel running ({targets.cancel.length})
          </button>
          {canAct && (
            <button
              type="button"
              disabled={busy || ended.length === 0}
              onClick={() => {
                // Failed runs from their failed node; any other ended one from the start.
                const allFailed = ended.every((run) => run.status === "failed");
                onRerun({
                  ids: ended.map((run) => run.id),
                  version: "latest",
                  ...(allFailed ? { from_failed: true as const } : {}),
                });
                onDone();
              }}
            >
              Rerun selected on the latest version ({ended.length})
            </button>
          )}
          <button type="button" className="link" disabled={busy} onClick={onDone}>
            Clear selection
          </button>
        </div>
      )}
      {outcome && (
        <p className={outcome.failed.length ? "error-message" : "notice"} role="status">
          {outcomeText(outcome)}
        </p>
      )}
      <ConfirmDialog
        open={asking === "cancel"}
        title={`Cancel ${targets.cancel.length} running run${targets.cancel.length === 1 ? "" : "s"}?`}
        confirmLabel="Cancel them"
        onConfirm={() => void act("cancel")}
        onCancel={() => setAsking(null)}
      >
        <p>Each ends as cancelled, with every run it started below it.</p>
      </ConfirmDialog>
    </>
  );
}
