// The editor's bar: back to the list, the flow's name, tags, status and version, export, tidy-up, undo
// and redo, save (a draft), publish and activate or deactivate; under it, what the last save or check said.
import { Link } from "wouter";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import type { FlowDetail } from "../types";
import { EditorTags } from "./editor-tags";
import { versionsLabel } from "./model/publishing";
import { SavedMeanwhile } from "./saved-meanwhile";
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

/** The draft's note, Save (a draft), Publish (primary once there is something to publish) and the status. */
function DraftCommands({ draft }: { draft: FlowDraft }) {
  const { graph, save, publish, versions } = draft;
  const busy = save.isPending || publish.isPending;
  return (
    <>
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
        className={publish.canPublish ? undefined : "primary"}
        onClick={() => save.saveCanvas()}
        disabled={busy}
        title="Save as the draft, not live until published (Ctrl+S)"
      >
        Save
      </button>
      <button
        type="button"
        className={publish.canPublish ? "primary" : undefined}
        onClick={publish.publishDraft}
        disabled={busy || !publish.canPublish}
        title={graph.dirty ? "Save the changes as the draft and make it live" : "Make the draft live"}
      >
        Publish
      </button>
      <button type="button" onClick={publish.toggleStatus} disabled={busy}>
        {versions.status === "active" ? "Deactivate" : "Activate"}
      </button>
    </>
  );
}

export function EditorBar({ flow, draft, narrow }: { flow: FlowDetail; draft: FlowDraft; narrow: boolean }) {
  const { graph, versions } = draft;
  return (
    <div className="editor-bar">
      <Link href="/flows">← Flows</Link>
      <h1>{flow.name}</h1>
      <EditorTags flow={flow} draft={draft} />
      <StatusBadge status={versions.status} />
      <span className="muted">{versionsLabel(versions.state)}</span>
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
      <DraftCommands draft={draft} />
    </div>
  );
}

/**
 * The last save's notice or error (a version saved meanwhile with what to do about it), fields that
 * do not read, the editor's problems, a refused edge.
 */
export function EditorMessages({ draft, narrow }: { draft: FlowDraft; narrow: boolean }) {
  const { graph, problems, save } = draft;
  const draftProblems = draft.drafts.problems(graph.labelOf);
  return (
    <>
      {graph.notice && <p className="notice">{graph.notice}</p>}
      <ErrorMessage error={save.error} />
      <SavedMeanwhile draft={draft} />
      <ErrorMessage error={draft.publish.error} />
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
