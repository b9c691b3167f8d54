// "Connect to": an edge from the selected node to another picked in a list, the keyboard's way to
// draw one (the canvas's handles need a pointer). Only the nodes it may lead to are offered: no
// trigger, no loop, no second edge between the same two nodes (connection-rules.ts).
import type { EditorNode } from "../components/flow-graph";
import { connectionProblem } from "./model/connection-rules";
import type { FlowDraft } from "./use-flow-draft";

export function ConnectTo({ node, draft }: { node: EditorNode; draft: FlowDraft }) {
  const { nodes, edges, labelOf } = draft.graph;
  const targets = nodes.filter(
    (other) => other.data.category !== "trigger" && connectionProblem(edges, node.id, other.id) === null,
  );
  return (
    <label className="field">
      Connect to
      <select
        name="connect-to"
        value=""
        onChange={(event) => {
          if (event.target.value) draft.edits.connect(node.id, event.target.value);
        }}
      >
        <option value="">{targets.length ? "a node this one leads to…" : "no node to connect to"}</option>
        {targets.map((target) => (
          <option key={target.id} value={target.id}>
            {labelOf(target.id)} ({target.data.type})
          </option>
        ))}
      </select>
    </label>
  );
}
