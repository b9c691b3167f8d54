// The rerun dialog's fields: where the rerun starts, on which version (and what that version
// changed on the rerun's path), and the outputs of carried-over nodes to replace.
import { useQuery } from "@tanstack/react-query";
import type { Dispatch, SetStateAction } from "react";
import { client, describeError, read } from "../api";
import { formatJson } from "../format";
import type { FlowDetail, RunDetail } from "../types";
import { isStored, nodeChanges } from "./rerun-plan";
import type { NodeProgress } from "./run-progress";
import { versionNote } from "./rerun";

/** The node the rerun starts from (or the start), and what it runs again and carries over. */
export function RerunStart(props: {
  nodes: NodeProgress[];
  from: string | null;
  onFrom: (from: string | null) => void;
  carried: NodeProgress[];
  labelOf: (id: string) => string;
}) {
  const { nodes, from, carried } = props;
  return (
    <>
      <label className="field">
        Rerun from
        <select value={from ?? ""} onChange={(e) => props.onFrom(e.target.value || null)}>
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
          : `${props.labelOf(from)} and every node after it run again; ${
              carried.length > 0
                ? `${carried.map((n) => n.label).join(", ")} ${carried.length === 1 ? "is" : "are"} carried over (not run again).`
                : "no node is carried over."
            }`}
      </p>
    </>
  );
}

/** The run's version or the flow's latest, with what a newer version means for the run. */
export function VersionChoice(props: {
  run: RunDetail;
  latest: number | undefined;
  version: "run" | "latest";
  onVersion: (version: "run" | "latest") => void;
}) {
  const { run, latest, version } = props;
  const note = versionNote(run.version, latest);
  return (
    <>
      <label>
        <input type="radio" name="version" checked={version === "run"} onChange={() => props.onVersion("run")} /> This
        run&apos;s version (v{run.version})
      </label>
      <label>
        <input
          type="radio"
          name="version"
          checked={version === "latest"}
          disabled={latest === undefined}
          onChange={() => props.onVersion("latest")}
        />{" "}
        The latest version{latest !== undefined && ` (v${latest})`}
      </label>
      {note && (
        <p className={latest !== undefined && latest > run.version ? "notice small" : "hint"} role="status">
          {note}
        </p>
      )}
    </>
  );
}

/** The carried-over nodes whose recorded output the rerun may replace, each as JSON. */
export function CarriedOutputs(props: {
  nodes: NodeProgress[];
  outputs: Map<string, string>;
  setOutputs: Dispatch<SetStateAction<Map<string, string>>>;
  /** The nodes just before the rerun's first node. */
  before: Set<string>;
  fromLabel: string;
}) {
  const { outputs, setOutputs } = props;
  return (
    <fieldset className="rerun-outputs">
      <legend>Outputs carried over</legend>
      {props.nodes.map((node) => {
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
              {props.before.has(node.id) && <span className="hint"> (just before {props.fromLabel})</span>}
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
  );
}

/** What the latest version changed on the path the rerun runs, node by node. */
export function PathChanges(props: {
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
