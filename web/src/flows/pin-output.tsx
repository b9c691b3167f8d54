// "Pinned data" in the selected node's side panel: pin its output from the draft's last test run,
// from the run the editor was opened from, or as typed JSON; unpin. Test runs of the draft (Test
// flow, Run to here) then use the pinned output instead of executing the node.
import { useState } from "react";
import type { EditorNode } from "../components/flow-graph";
import { formatJson } from "../format";
import type { FlowDraft } from "./use-flow-draft";
import { parsePinText } from "./use-pins";

/** The node's output in the draft's last test run (its last attempt, when it succeeded). */
function lastTestOutput(draft: FlowDraft, nodeId: string): { output: unknown; runId: string } | undefined {
  const { test } = draft.run;
  const last = test.nodes.find((node) => node.id === nodeId)?.attempts.at(-1);
  return test.runId && last?.status === "success" ? { output: last.output, runId: test.runId } : undefined;
}

/** Typed JSON, pinned once it reads as JSON; the error says why not. */
function PinTyped({ onPin }: { onPin: (output: unknown) => void }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
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
          else onPin(parsed.output);
        }}
      >
        Pin typed JSON
      </button>
    </>
  );
}

export function PinOutput({ node, draft }: { node: EditorNode; draft: FlowDraft }) {
  const { pins, fromRun } = draft;
  const pinned = pins.pins[node.id];
  // A trigger's output is the run's input: never pinned.
  if (node.data.category === "trigger") return null;
  const tested = lastTestOutput(draft, node.id);
  const fromRunOutput = fromRun.outputOf(node.id);
  const pin = (output: unknown, source: string) => pins.pin(node.id, output, source);
  return (
    <details className="pin-output" open={pinned !== undefined || fromRunOutput !== undefined}>
      <summary>Pinned data{pinned ? " (pinned)" : ""}</summary>
      <p className="hint">
        A pinned node is not executed in test runs of this draft (Test flow, Run to here): its pinned output is passed
        on. Pins are kept in this browser with the draft, never saved in the flow nor used by runs of the saved version.
      </p>
      {pinned && (
        <div className="pinned" aria-label="Pinned output">
          <p className="muted small">Pinned from {pinned.source}</p>
          <pre className="json">{formatJson(pinned.output)}</pre>
          <button type="button" onClick={() => pins.unpin(node.id)}>
            Unpin
          </button>
        </div>
      )}
      {tested && (
        <button type="button" onClick={() => pin(tested.output, `the test run ${tested.runId}`)}>
          Pin the last test output
        </button>
      )}{" "}
      {fromRunOutput && fromRun.runId && (
        <button type="button" onClick={() => pin(fromRunOutput.output, `the run ${fromRun.runId}`)}>
          Pin from run {fromRun.runId}
        </button>
      )}
      <PinTyped onPin={(output) => pin(output, "typed JSON")} />
    </details>
  );
}
