// The rerun dialog of a run's page: from which node (or the start), on which version (the run's or
// the flow's latest, said plainly when a newer one was saved), with the trigger's input and the
// outputs of carried-over nodes editable as JSON. It starts the rerun and opens the new run.
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { describeError } from "../api";
import { formatJson } from "../format";
import type { FlowDetail, RunDetail, RunSteps } from "../types";
import { ErrorMessage } from "../ui/status-badge";
import { useRerun } from "./rerun";
import { CarriedOutputs, PathChanges, RerunStart, VersionChoice } from "./rerun-fields";
import { carriedNodes, nodesBefore, rerunBody, runInput } from "./rerun-plan";
import type { NodeProgress } from "./run-progress";

export function RerunDialog(props: {
  /** The node the dialog was opened on (null: the start); undefined: closed. */
  from: string | null | undefined;
  run: RunDetail;
  nodes: NodeProgress[];
  graph: Pick<RunSteps, "edges"> | undefined;
  /** The flow's current version, when read. */
  latest: number | undefined;
  /** Its definition, to compare with the run's. */
  latestDefinition: FlowDetail["definition"] | undefined;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const open = props.from !== undefined;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog rerun-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>Rerun this run</h2>
      {/* Opened afresh each time: the fields start from the run, not from the last try. */}
      {open && <RerunForm {...props} from={props.from ?? null} />}
    </dialog>
  );
}

type RerunFormProps = {
  from: string | null;
  run: RunDetail;
  nodes: NodeProgress[];
  graph: Pick<RunSteps, "edges"> | undefined;
  latest: number | undefined;
  /** Its definition, to compare with the run's. */
  latestDefinition: FlowDetail["definition"] | undefined;
  onClose: () => void;
};

/** The form's state and what it plans: the rerun's body, or the errors that block it. */
function useRerunDraft({ run, nodes, graph, ...props }: RerunFormProps) {
  const [from, setFrom] = useState<string | null>(props.from);
  const [version, setVersion] = useState<"run" | "latest">("run");
  const original = useMemo(() => runInput(graph, nodes), [graph, nodes]);
  const [input, setInput] = useState(original ? formatJson(original) : "");
  // The outputs replaced, by node id: their text (a node unchecked is not in it).
  const [outputs, setOutputs] = useState<Map<string, string>>(new Map());
  const rerun = useRerun(run.id);

  const carried = carriedNodes(graph, nodes, from);
  const before = nodesBefore(graph, nodes, from);
  // The node(s) just before `from` first: theirs is the output the rerun's first node receives.
  const editable = [...carried.filter((n) => before.has(n.id)), ...carried.filter((n) => !before.has(n.id))];
  const labelOf = (id: string) => nodes.find((n) => n.id === id)?.label ?? id;
  const planned = rerunBody({
    from,
    version,
    input: { text: input, original },
    outputs: new Map(
      [...outputs]
        .filter(([id]) => carried.some((n) => n.id === id))
        .map(([id, text]) => [id, { label: labelOf(id), text }]),
    ),
  });
  const errors = "errors" in planned ? planned.errors : [];
  return {
    ...{ from, setFrom, version, setVersion, original, input, setInput, outputs, setOutputs },
    ...{ rerun, carried, before, editable, labelOf, planned, errors },
  };
}

function RerunForm(props: RerunFormProps) {
  const { run, nodes, latest } = props;
  const ids = useId();
  const draft = useRerunDraft(props);
  const { from, rerun, planned, errors, labelOf } = draft;
  return (
    <form
      // The API's answer to the last try is stale once a field changes.
      onChange={() => rerun.error && rerun.reset()}
      onSubmit={(event) => {
        event.preventDefault();
        if ("body" in planned) rerun.mutate(planned.body);
      }}
    >
      <RerunStart nodes={nodes} from={from} onFrom={draft.setFrom} carried={draft.carried} labelOf={labelOf} />
      <fieldset className="rerun-version">
        <legend>Version</legend>
        <VersionChoice run={run} latest={latest} version={draft.version} onVersion={draft.setVersion} />
        {draft.version === "latest" && latest !== undefined && latest > run.version && props.latestDefinition && (
          <PathChanges run={run} from={from} latest={latest} latestDefinition={props.latestDefinition} />
        )}
      </fieldset>
      <label className="field">
        The trigger&apos;s input (JSON)
        <textarea
          name={`${ids}-input`}
          rows={4}
          value={draft.input}
          placeholder="Empty: the run's own input"
          onChange={(e) => draft.setInput(e.target.value)}
        />
      </label>
      <p className="hint">
        {draft.original
          ? "The run's input; changed, the trigger runs again on it."
          : "Empty keeps the run's input; a JSON object replaces it."}
      </p>
      {draft.editable.length > 0 && (
        <CarriedOutputs
          nodes={draft.editable}
          outputs={draft.outputs}
          setOutputs={draft.setOutputs}
          before={draft.before}
          fromLabel={from === null ? "" : labelOf(from)}
        />
      )}
      {errors.length > 0 && (
        <ul className="problems" role="alert">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
      <ErrorMessage error={rerun.error ? describeError(rerun.error) : null} />
      <div className="toolbar">
        <button type="submit" disabled={errors.length > 0 || rerun.isPending}>
          Start the rerun
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
