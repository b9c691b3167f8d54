// "Pinned data" in the selected node's side panel: pin its output from the draft's last test run,
// from the run the editor was opened from, or as typed JSON; unpin. Test runs of the draft (Test
// flow, Run to here) then use the pinned output instead of executing the node, and a pinned
// branching node follows the branch pinned with it (the step's, or the one chosen for typed JSON).
import { useState } from "react";
import type { EditorNode } from "../components/flow-graph";
import { formatJson } from "../format";
import type { FlowDraft } from "./use-flow-draft";
import { BRANCHING_TYPES, outputLabels } from "../components/node-outputs";
import { parsePinText, type Pin } from "./use-pins";

/** The node's output in the draft's last test run (its last attempt, when it succeeded), with its branch. */
function lastTestOutput(
  draft: FlowDraft,
  nodeId: string,
): { output: unknown; branch?: string; runId: string } | undefined {
  const { test } = draft.run;
  const last = test.nodes.find((node) => node.id === nodeId)?.attempts.at(-1);
  if (!test.runId || last?.status !== "success") return undefined;
  return { output: last.output, ...(last.branch ? { branch: last.branch } : {}), runId: test.runId };
}

/**
 * The branch a typed pin takes, among the node's outputs: a branching node names one (the first
 * by default); a node with only an error output may take it or its main output ("").
 */
function PinBranch(props: { labels: string[]; branching: boolean; value: string; onChange: (value: string) => void }) {
  if (props.labels.length === 0) return null;
  return (
    <label className="field">
      Branch it takes
      <select name="pin-branch" value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {!props.branching && <option value="">its output (no branch)</option>}
        {props.labels.map((label) => (
          <option key={label} value={label}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Typed JSON, pinned once it reads as JSON (with the branch chosen, for a node that has outputs); the error says why not. */
function PinTyped({ node, onPin }: { node: EditorNode; onPin: (output: unknown, branch?: string) => void }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const labels = outputLabels(node.data);
  const branching = BRANCHING_TYPES.has(node.data.type);
  const [chosen, setChosen] = useState("");
  // A branching node always takes one: its first output until another is chosen.
  const branch = branching && !labels.includes(chosen) ? labels[0] : chosen;
  return (
    <>
      <PinBranch labels={labels} branching={branching} value={branch ?? ""} onChange={setChosen} />
      <label className="field">
        Output to pin (JSON)
        <textarea
          name="pin-output"
          rows={4}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
        />
      </label>
      {problem && (
        <p className="problems" role="alert">
          {problem}
        </p>
      )}
      <button
        type="button"
        onClick={() => {
          const parsed = parsePinText(text);
          if ("problem" in parsed) setProblem(parsed.problem);
          else onPin(parsed.output, branch || undefined);
        }}
      >
        Pin typed JSON
      </button>
    </>
  );
}

/** The node's pin: where from, the branch it takes, its output; a branching node's pin without a branch says it needs one. */
function Pinned({ node, pin, onUnpin }: { node: EditorNode; pin: Pin; onUnpin: () => void }) {
  const needsBranch = !pin.branch && BRANCHING_TYPES.has(node.data.type);
  return (
    <div className="pinned" aria-label="Pinned output">
      <p className="muted small">Pinned from {pin.source}</p>
      {pin.branch && <p className="small">Takes the branch {pin.branch}</p>}
      {needsBranch && (
        <p className="problems" role="alert">
          This pin names no branch: test runs refuse it. Pin it again with the branch it takes.
        </p>
      )}
      <pre className="json">{formatJson(pin.output)}</pre>
      <button type="button" onClick={onUnpin}>
        Unpin
      </button>
    </div>
  );
}

export function PinOutput({ node, draft }: { node: EditorNode; draft: FlowDraft }) {
  const { pins, fromRun } = draft;
  const pinned = pins.pins[node.id];
  // A trigger's output is the run's input: never pinned.
  if (node.data.category === "trigger") return null;
  const tested = lastTestOutput(draft, node.id);
  const fromRunOutput = fromRun.outputOf(node.id);
  const pin = (found: { output: unknown; branch?: string }, source: string) =>
    pins.pin(node.id, found.output, source, found.branch);
  return (
    <details className="pin-output" open={pinned !== undefined || fromRunOutput !== undefined}>
      <summary>Pinned data{pinned ? " (pinned)" : ""}</summary>
      <p className="hint">
        A pinned node is not executed in test runs of this draft (Test flow, Run to here): its pinned output is passed
        on. Pins are kept in this browser with the draft, never saved in the flow nor used by runs of the saved version.
      </p>
      {pinned && <Pinned node={node} pin={pinned} onUnpin={() => pins.unpin(node.id)} />}
      {tested && (
        <button type="button" onClick={() => pin(tested, `the test run ${tested.runId}`)}>
          Pin the last test output
        </button>
      )}{" "}
      {fromRunOutput && fromRun.runId && (
        <button type="button" onClick={() => pin(fromRunOutput, `the run ${fromRun.runId}`)}>
          Pin from run {fromRun.runId}
        </button>
      )}
      <PinTyped node={node} onPin={(output, branch) => pin({ output, branch }, "typed JSON")} />
    </details>
  );
}
