// The editor's bar: back to the list, the flow's name, status and version, export, tidy-up, undo
// and redo, save and activate or deactivate; under it, what the last save or check said.
import { Link } from "wouter";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import type { FlowDetail } from "../types";
import type { FlowDraft } from "./use-flow-draft";

/** Saves `value` as a JSON file through the browser's download. */
function downloadJson(fileName: string, value: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** Tidy up, undo and redo: the canvas's own commands (not on a phone). */
function CanvasCommands({ draft }: { draft: FlowDraft }) {
  const { graph, history, edits } = draft;
  return (
    <>
      <button
        type="button"
        onClick={edits.tidyUp}
        disabled={graph.nodes.length < 2}
        title="Lay the nodes out along the edges"
      >
        Tidy up
      </button>
      <button
        type="button"
        onClick={() => history.step("undo")}
        disabled={!history.canUndo && !graph.dirty}
        title="Undo (Ctrl+Z)"
      >
        Undo
      </button>
      <button
        type="button"
        onClick={() => history.step("redo")}
        disabled={!history.canRedo}
        title="Redo (Ctrl+Shift+Z)"
      >
        Redo
      </button>
    </>
  );
}

export function EditorBar({ flow, draft, narrow }: { flow: FlowDetail; draft: FlowDraft; narrow: boolean }) {
  const { graph, save } = draft;
  return (
    <div className="editor-bar">
      <Link href="/flows">← Flows</Link>
      <h1>{flow.name}</h1>
      <StatusBadge status={save.status} />
      <span className="muted">v{save.version}</span>
      {graph.dirty && <span className="badge unsaved">unsaved changes</span>}
      <Link href={`/usage?flow=${flow.id}`}>Cost</Link>
      <span className="spacer" />
      <button
        type="button"
        onClick={() =>
          downloadJson(`${flow.name.replace(/[^\w.-]+/g, "-")}.json`, {
            name: flow.name,
            description: flow.description,
            definition: graph.definition,
          })
        }
      >
        Export JSON
      </button>
      {!narrow && <CanvasCommands draft={draft} />}
      {/* Only a changed canvas makes a new version, so the note shows with unsaved changes. */}
      {graph.dirty && (
        <input
          className="version-note"
          aria-label="Version note (optional)"
          placeholder="Note (optional)"
          maxLength={500}
          value={save.note}
          onChange={(e) => save.setNote(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") save.saveCanvas();
          }}
        />
      )}
      <button
        type="button"
        className="primary"
        onClick={() => save.saveCanvas()}
        disabled={save.isPending}
        title="Save (Ctrl+S)"
      >
        Save
      </button>
      <button
        type="button"
        onClick={() => save.saveCanvas(save.status === "active" ? "inactive" : "active")}
        disabled={save.isPending}
      >
        {save.status === "active" ? "Deactivate" : "Activate"}
      </button>
    </div>
  );
}

/** The last save's notice or error, fields that do not read, the editor's problems, a refused edge. */
export function EditorMessages({ draft, narrow }: { draft: FlowDraft; narrow: boolean }) {
  const { graph, problems, save } = draft;
  const draftProblems = draft.drafts.problems(graph.labelOf);
  return (
    <>
      {graph.notice && <p className="notice">{graph.notice}</p>}
      <ErrorMessage error={save.error} />
      {draftProblems.length > 0 && (
        <div className="error-message" role="alert">
          Not saved: {draftProblems.length === 1 ? "a field does" : "fields do"} not read as {""}
          {draftProblems.length === 1 ? "its type" : "their types"}:
          <ul>
            {draftProblems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {problems.ownCount > 0 && (
        <p className="error-message" role="alert">
          Not saved: fix what is marked first ({problems.ownCount} problem{problems.ownCount === 1 ? "" : "s"}).
        </p>
      )}
      {problems.shown.other.length > 0 && (
        <ul className="problems" role="alert">
          {problems.shown.other.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {graph.refusedEdge && (
        <p className="edge-refused" role="alert">
          {graph.refusedEdge}
        </p>
      )}
      {narrow && (
        <p className="hint editor-narrow-hint">
          Adding and connecting nodes needs a wider screen; here you can look at the flow and change a node&apos;s
          settings.
        </p>
      )}
    </>
  );
}
