// A run's nodes in the order they run, one row each (name, type, state, attempts, branch, duration),
// opened to the node's error, input, output, earlier attempts and log. A failed node starts open.
import * as Collapsible from "@radix-ui/react-collapsible";
import { Link } from "wouter";
import { formatDuration, formatJson, formatTime } from "../format";
import type { RunSteps, Step } from "../types";
import { RunLogs } from "./run-logs";
import { durationOf, stateLabel, type NodeProgress } from "./run-progress";
import { handledFailure } from "../components/node-settings";
import { errorText } from "./step-error";

/** Why the API shows no input for a step, in words. */
type Attempt = NodeProgress["attempts"][number];

const inputUnavailable: Record<NonNullable<Step["input_unavailable"]>, string> = {
  not_run: "(the node did not run)",
  upstream_pending: "(not known yet: an upstream node's output is not recorded yet)",
  definition_missing: "(unknown: the flow version this run used was deleted)",
};

/** The node's last attempt (its error, input and output, when it ran) and its earlier attempts. */
function LastAttempt({ node, last, earlier }: { node: NodeProgress; last: Attempt; earlier: Attempt[] }) {
  return (
    <>
      {last.error !== null && last.error !== undefined && (
        <div className={`step-error${node.state === "handled" ? " handled" : ""}`} role="alert">
          <strong>Error:</strong> {errorText(last.error)}
          {node.state === "handled" && (
            <p className="small">
              Handled by the node&apos;s on error setting ({handledFailure(last)}): it passed its error on as its output
              {last.branch ? ` and took its ${last.branch} edges` : ""}, and the run went on.
            </p>
          )}
        </div>
      )}
      <div className="step-io">
        <div data-io="input">
          <h4>Input</h4>
          <pre>{last.input_unavailable ? inputUnavailable[last.input_unavailable] : formatJson(last.input)}</pre>
        </div>
        <div data-io="output">
          <h4>Output</h4>
          <pre>{last.output === null ? "(none)" : formatJson(last.output)}</pre>
        </div>
      </div>
      {!node.carriedOverFrom && (
        <p className="muted small">
          Started {formatTime(last.started_at)} · finished {formatTime(last.finished_at)}
        </p>
      )}
      {earlier.length > 0 && (
        <ul className="small earlier-attempts">
          {earlier.map((attempt) => (
            <li key={attempt.attempt}>
              Attempt {attempt.attempt}: {attempt.status} after {formatDuration(attempt.duration_ms)}
              {attempt.error !== null && attempt.error !== undefined && <> · {errorText(attempt.error)}</>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function NodeDetail({
  node,
  runId,
  running,
  onRerunFrom,
}: {
  node: NodeProgress;
  runId: string;
  running: boolean;
  onRerunFrom?: (nodeId: string) => void;
}) {
  const last = node.attempts.at(-1);
  const earlier = node.attempts.slice(0, -1);
  return (
    <>
      {onRerunFrom && (
        <div className="toolbar">
          <button type="button" onClick={() => onRerunFrom(node.id)}>
            Rerun from here
          </button>
        </div>
      )}
      {node.carriedOverFrom && (
        <p className="notice small">
          Carried over from run <Link href={`/runs/${node.carriedOverFrom}`}>{node.carriedOverFrom}</Link>: the node
          succeeded there, so this run took its output over instead of running it again.
        </p>
      )}
      {!last ? (
        <p className="muted small">
          {node.carriedOverFrom
            ? "Its output is recorded in this run when the run ends."
            : node.state === "pending"
              ? "Not started yet: it runs once the nodes before it are done."
              : "It did not run."}
        </p>
      ) : (
        <LastAttempt node={node} last={last} earlier={earlier} />
      )}
      {/* A node taken over wrote its log in the run it ran in. */}
      <h4>Log of this node{node.carriedOverFrom && ` (in run ${node.carriedOverFrom})`}</h4>
      <RunLogs runId={node.carriedOverFrom ?? runId} nodeId={node.id} running={running && !node.carriedOverFrom} />
    </>
  );
}

function NodeRow(props: {
  node: NodeProgress;
  runId: string;
  running: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onRerunFrom?: (nodeId: string) => void;
}) {
  const { node, open } = props;
  const last = node.attempts.at(-1);
  return (
    <Collapsible.Root asChild open={open} onOpenChange={props.onOpenChange}>
      <tbody id={`step-${node.id}`}>
        <tr className={`step step-${node.state}`} data-step={node.id}>
          <td>
            <Collapsible.Trigger className="link">
              {open ? "▾" : "▸"} {node.label}
            </Collapsible.Trigger>
            {node.label !== node.id && <span className="muted small"> {node.id}</span>}
          </td>
          <td data-label="Type">{node.type}</td>
          <td data-label="Status">
            <span className={`badge status-${node.state}`}>{stateLabel(node)}</span>
            {node.carriedOverFrom && (
              <span className="small carried-over">
                {" "}
                from run <Link href={`/runs/${node.carriedOverFrom}`}>{node.carriedOverFrom}</Link>
              </span>
            )}
          </td>
          <td data-label="Attempt">{node.carriedOverFrom ? "" : (last?.attempt ?? "")}</td>
          <td data-label="Branch">{last?.branch ?? ""}</td>
          <td data-label="Duration">{formatDuration(durationOf(node))}</td>
        </tr>
        <Collapsible.Content asChild>
          <tr className="step-detail">
            <td colSpan={6}>
              <NodeDetail node={node} runId={props.runId} running={props.running} onRerunFrom={props.onRerunFrom} />
            </td>
          </tr>
        </Collapsible.Content>
      </tbody>
    </Collapsible.Root>
  );
}

export function RunSteps(props: {
  nodes: NodeProgress[];
  runId: string;
  running: boolean;
  /** The ids of the nodes whose detail is open. */
  open: Set<string>;
  onOpenChange: (nodeId: string, open: boolean) => void;
  /** Offered on each node of an ended run to those who may rerun it: opens the rerun dialog on it. */
  onRerunFrom?: (nodeId: string) => void;
}) {
  return (
    <table className="list steps cards">
      <thead>
        <tr>
          <th>Node</th>
          <th>Type</th>
          <th>Status</th>
          <th>Attempt</th>
          <th>Branch</th>
          <th>Duration</th>
        </tr>
      </thead>
      {/* One tbody per node: its row and its detail row open and close together. */}
      {props.nodes.map((node) => (
        <NodeRow
          key={node.id}
          node={node}
          runId={props.runId}
          running={props.running}
          open={props.open.has(node.id)}
          onOpenChange={(open) => props.onOpenChange(node.id, open)}
          onRerunFrom={props.onRerunFrom}
        />
      ))}
    </table>
  );
}
