// Under the editor's bar when a save was refused because another version was saved meanwhile: which
// version, who saved it, and the two ways on (load it, or save the canvas as a new draft on top).
import { ErrorMessage } from "../ui/status-badge";
import { saveConflictNotice } from "./model/publishing";
import type { FlowDraft } from "./use-flow-draft";

export function SavedMeanwhile({ draft }: { draft: FlowDraft }) {
  const { meanwhile, isPending } = draft.save;
  if (!meanwhile.saved) return null;
  const { version, author } = meanwhile.saved;
  const busy = isPending || meanwhile.isLoading;
  return (
    <>
      <div className="error-message saved-meanwhile" role="alert">
        <p>{saveConflictNotice(version, author)}</p>
        <button type="button" onClick={meanwhile.load} disabled={busy}>
          Load version {version}
        </button>{" "}
        <button
          type="button"
          onClick={meanwhile.saveOnTop}
          disabled={busy}
          title={`Save the canvas as a new draft after version ${version}; both stay among the versions`}
        >
          Save mine as a new draft on top
        </button>
      </div>
      <ErrorMessage error={meanwhile.loadError} />
    </>
  );
}
