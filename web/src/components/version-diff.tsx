// A stored version beside the canvas's definition: what changed in words (nodes, fields, edges,
// settings), then a line diff of their pretty-printed JSON (keys in one stable order)
// (loaded with the versions view, never on first paint).
import { useEffect, useMemo } from "react";
import { ReadableDiff } from "../flows/readable-diff";
import type { FlowDefinition } from "../types";
import { canonicalJson, lineDiff, type DiffLine, type DiffRow } from "./line-diff";

function Cell({ line, side, kind }: { line: DiffLine | undefined; side: "old" | "new"; kind: DiffRow["kind"] }) {
  const marked = line && kind !== "same";
  const Mark = side === "old" ? "del" : "ins";
  return (
    <>
      <td className="diff-n">{line?.n ?? ""}</td>
      <td className={`diff-${side}${marked ? (side === "old" ? " removed" : " added") : ""}${line ? "" : " blank"}`}>
        {marked ? <Mark>{line.text}</Mark> : (line?.text ?? "")}
      </td>
    </>
  );
}

/** Restore (as the draft), publish (a rollback, unless it is the published version) and close. */
function DiffActions(props: { published: boolean; onRestore: () => void; onPublish: () => void; onClose: () => void }) {
  return (
    <div className="toolbar diff-actions">
      <button type="button" onClick={props.onRestore} title="Save it as the draft: not live until published">
        Restore this version
      </button>
      {!props.published && (
        <button
          type="button"
          onClick={props.onPublish}
          title="Roll back: production runs this version, the draft stays"
        >
          Publish this version
        </button>
      )}
      <span className="spacer" />
      <button type="button" onClick={props.onClose} aria-label="Close the comparison">
        Close ✕
      </button>
    </div>
  );
}

export default function VersionDiff(props: {
  label: string;
  old: FlowDefinition;
  current: FlowDefinition;
  onClose: () => void;
  /** Whether the version compared is the one production runs (nothing to publish then). */
  published: boolean;
  onRestore: () => void;
  onPublish: () => void;
}) {
  const { onClose } = props;
  // Esc closes the comparison, as its Close button does.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  const oldText = useMemo(() => canonicalJson(props.old), [props.old]);
  const newText = useMemo(() => canonicalJson(props.current), [props.current]);
  const rows = useMemo(() => lineDiff(oldText, newText), [oldText, newText]);
  const removed = rows?.filter((r) => r.old && r.kind !== "same").length ?? 0;
  const added = rows?.filter((r) => r.new && r.kind !== "same").length ?? 0;
  return (
    <div className="side-by-side" role="dialog" aria-label={`${props.label} compared with the canvas`}>
      <DiffActions
        published={props.published}
        onRestore={props.onRestore}
        onPublish={props.onPublish}
        onClose={onClose}
      />
      <ReadableDiff before={props.old} after={props.current} />
      <div className="diff-head">
        <h4>{props.label}</h4>
        <h4>On the canvas</h4>
      </div>
      {!rows ? (
        <p className="muted small">The two versions are too far apart to compare line by line.</p>
      ) : (
        <p className="small diff-summary">
          {removed === 0 && added === 0 ? (
            "No differences."
          ) : (
            <>
              <span className="diff-count removed">−{removed}</span> <span className="diff-count added">+{added}</span>{" "}
              lines
            </>
          )}
        </p>
      )}
      {/* Focusable, so that the line diff scrolls by keyboard too. */}
      <div className="diff-scroll" role="region" aria-label="Line diff" tabIndex={0}>
        <table className="version-diff">
          <tbody>
            {(rows ?? []).map((row, i) => (
              <tr key={i} data-diff={row.kind}>
                <Cell line={row.old} side="old" kind={row.kind} />
                <Cell line={row.new} side="new" kind={row.kind} />
              </tr>
            ))}
          </tbody>
        </table>
        {!rows && (
          <div className="diff-head">
            <pre>{oldText}</pre>
            <pre>{newText}</pre>
          </div>
        )}
      </div>
    </div>
  );
}
