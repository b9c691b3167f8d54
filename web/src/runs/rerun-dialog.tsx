// The rerun dialog of a run's page: from which node (or the start), on which version (the run's or
// the flow's latest, said plainly when a newer one was saved), with the trigger's input and the
// outputs of carried-over nodes editable as JSON. It starts the rerun and opens the new run.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { formatJson } from "../format";
import type { FlowDetail, RunDetail, RunSteps } from "../types";
import type { NodeProgress } from "./run-progress";
import { carriedNodes, isStored, nodeChanges, nodesBefore, rerunBody, runInput, type RerunBody } from "./rerun-plan";
import { ErrorMessage } from "../ui/status-badge";

/** Starts a rerun of `runId` and opens the new run's page. */
export function useRerun(runId: string) {
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: (body: RerunBody) =>
      read(client.POST("/api/runs/{id}/rerun", { params: { path: { id: runId } }, body })),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
}

/** What the flow's newer version means for this run, in words; undefined while unknown. */
export function versionNote(runVersion: number, latest: number | undefined): string | undefined {
  if (latest === undefined) return undefined;
  return latest > runVersion
    ? `Version ${latest} was saved after this run.`
    : "This run ran the flow's latest version.";
}

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

function RerunForm(props: {
  from: string | null;
  run: RunDetail;
  nodes: NodeProgress[];
  graph: Pick<RunSteps, "edges"> | undefined;
  latest: number | undefined;
  /** Its definition, to compare with the run's. */
  latestDefinition: FlowDetail["definition"] | undefined;
  onClose: () => void;
}) {
  const { run, nodes, graph, latest } = props;
  const ids = useId();
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
  const note = versionNote(run.version, latest);

  return (
    <form
      // The API's answer to the last try is stale once a field changes.
      onChange={() => rerun.error && rerun.reset()}
      onSubmit={(event) => {
        event.preventDefault();
        if ("body" in planned) rerun.mutate(planned.body);
      }}
    >
      <label className="field">
        Rerun from
        <select value={from ?? ""} onChange={(e) => setFrom(e.target.value || null)}>
          <option value="">The start: the whole flow runs again</option>
          {nodes.map((node) => (
            <option key={node.id} value={node.id}>
              {node.label}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">
        {from === null
          ? "Every node runs again."
          : `${labelOf(from)} and every node after it run again; ${
              carried.length > 0
                ? `${carried.map((n) => n.label).join(", ")} ${carried.length === 1 ? "is" : "are"} carried over (not run again).`
                : "no node is carried over."
            }`}
      </p>
      <fieldset className="rerun-version">
        <legend>Version</legend>
        <label>
          <input type="radio" name="version" checked={version === "run"} onChange={() => setVersion("run")} /> This
          run&apos;s version (v{run.version})
        </label>
        <label>
          <input
            type="radio"
            name="version"
            checked={version === "latest"}
            disabled={latest === undefined}
            onChange={() => setVersion("latest")}
          />{" "}
          The latest version{latest !== undefined && ` (v${latest})`}
        </label>
        {note && (
          <p className={latest !== undefined && latest > run.version ? "notice small" : "hint"} role="status">
            {note}
          </p>
        )}
        {version === "latest" && latest !== undefined && latest > run.version && props.latestDefinition && (
          <PathChanges run={run} from={from} latest={latest} latestDefinition={props.latestDefinition} />
        )}
      </fieldset>
      <label className="field">
        The trigger&apos;s input (JSON)
        <textarea
          name={`${ids}-input`}
          rows={4}
          value={input}
          placeholder="Empty: the run's own input"
          onChange={(e) => setInput(e.target.value)}
        />
      </label>
      <p className="hint">
        {original
          ? "The run's input; changed, the trigger runs again on it."
          : "Empty keeps the run's input; a JSON object replaces it."}
      </p>
      {editable.length > 0 && (
        <fieldset className="rerun-outputs">
          <legend>Outputs carried over</legend>
          {editable.map((node) => {
            const recorded = node.attempts.at(-1)?.output;
            const text = outputs.get(node.id);
            const stored = isStored(recorded);
            return (
              <div key={node.id} className="rerun-output" data-rerun-output={node.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={text !== undefined}
                    disabled={stored}
                    onChange={(e) =>
                      setOutputs((current) => {
                        const next = new Map(current);
                        if (e.target.checked) next.set(node.id, formatJson(recorded));
                        else next.delete(node.id);
                        return next;
                      })
                    }
                  />{" "}
                  Replace the output of {node.label}
                  {before.has(node.id) && <span className="hint"> (just before {labelOf(from!)})</span>}
                  {stored && <span className="hint"> (too large to edit here)</span>}
                </label>
                {text !== undefined && (
                  <textarea
                    aria-label={`Output of ${node.label} (JSON)`}
                    rows={4}
                    value={text}
                    onChange={(e) => setOutputs((current) => new Map(current).set(node.id, e.target.value))}
                  />
                )}
              </div>
            );
          })}
        </fieldset>
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

/** What the latest version changed on the path the rerun runs, node by node. */
function PathChanges(props: {
  run: RunDetail;
  from: string | null;
  latest: number;
  latestDefinition: FlowDetail["definition"];
}) {
  const { run } = props;
  const pinned = useQuery({
    queryKey: ["flow", run.flow_id, "versions", run.version],
    queryFn: () =>
      read(
        client.GET("/api/flows/{id}/versions/{version}", {
          params: { path: { id: run.flow_id, version: run.version } },
        }),
      ),
    staleTime: Infinity,
  });
  if (pinned.error)
    return <p className="hint">The run&apos;s version could not be read: {describeError(pinned.error)}</p>;
  if (!pinned.data) return <p className="hint">Comparing the versions…</p>;
  const changes = nodeChanges(pinned.data.definition, props.latestDefinition, props.from);
  const where = props.from === null ? "in the flow" : "from the rerun's start on";
  if (changes.length === 0)
    return (
      <p className="hint rerun-changes">
        v{props.latest} changed nothing {where} (v{run.version} and v{props.latest} are the same there).
      </p>
    );
  return (
    <div className="rerun-changes">
      <p className="small">
        What v{props.latest} changed {where}:
      </p>
      <ul className="small">
        {changes.map((c) => (
          <li key={c.id} data-change={c.change}>
            {c.label}
            {c.label !== c.id && (
              <>
                {" "}
                <span className="muted">{c.id}</span>
              </>
            )}
            : {c.change}
          </li>
        ))}
      </ul>
    </div>
  );
}
