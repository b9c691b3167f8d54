// A node on the editor's canvas: its icon, name and type, its state in the last test run, a pin
// mark when its output is pinned, its problems, and its handles (an error handle when it branches on error),
// each output with its "+" (a branching node's outputs listed, one "+" per branch).
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { useContext } from "react";
import type { EditorNode } from "../components/flow-graph";
import { NodeIcon } from "../components/node-icons";
import { branchesOnError, ERROR_BRANCH } from "../components/node-settings";
import { TestRunStates } from "../components/test-run";
import { AddNextButton } from "./add-next";
import { branchLabels } from "../components/node-outputs";
import { PinnedNodes } from "./use-pins";

/**
 * A branching node's outputs, one line each (a condition's true and false, a branch node's cases
 * and default), each with its "+": the next node is connected from that branch.
 */
function BranchOutputs(props: { nodeId: string; name: string; branches: string[]; adds: boolean }) {
  return (
    <ul className="flow-node-outputs" aria-label={`Outputs of ${props.name}`}>
      {props.branches.map((branch) => (
        <li key={branch} className="flow-node-output" data-output={branch}>
          <span className="flow-node-output-label">{branch}</span>
          {props.adds && (
            <AddNextButton nodeId={props.nodeId} handle={branch} label={`Add a node on ${branch} of ${props.name}`} />
          )}
        </li>
      ))}
    </ul>
  );
}

function SvcNode({ id, data, selected, isConnectable }: NodeProps<EditorNode>) {
  // Where the node stands in the editor's last test run.
  const tested = useContext(TestRunStates).get(id);
  const pinned = useContext(PinnedNodes).has(id);
  const name = data.name || id;
  const branches = branchLabels(data.type, data.config);
  return (
    <div
      className={`flow-node cat-${data.category}${selected ? " selected" : ""}${data.problems.length ? " has-problems" : ""}`}
      data-node-type={data.type}
    >
      {data.category !== "trigger" && <Handle type="target" position={Position.Left} isConnectable={isConnectable} />}
      <div className="flow-node-head">
        <NodeIcon type={data.type} category={data.category} />
        <div className="flow-node-title">
          <div className="flow-node-name">{data.name || data.catalogName}</div>
          <div className="flow-node-type">{data.type}</div>
        </div>
      </div>
      {tested && (
        <div className={`flow-node-tested badge status-${tested}`} data-test-state={tested}>
          test: {tested}
        </div>
      )}
      {pinned && (
        <div className="flow-node-pinned badge" data-pinned title="Pinned: test runs pass its pinned output on">
          pinned
        </div>
      )}
      {data.problems.map((problem) => (
        <div key={problem} className="flow-node-problem" role="alert">
          {problem}
        </div>
      ))}
      <Handle type="source" position={Position.Right} isConnectable={isConnectable} />
      {branches.length > 0 ? (
        <BranchOutputs nodeId={id} name={name} branches={branches} adds={isConnectable} />
      ) : (
        isConnectable && <AddNextButton nodeId={id} handle={null} label={`Add a node after ${name}`} />
      )}
      {branchesOnError(data.extra) && (
        <Handle
          type="source"
          id={ERROR_BRANCH}
          position={Position.Bottom}
          className="error-handle"
          title="On error: edges from here run only when the node fails"
          isConnectable={isConnectable}
        />
      )}
      {isConnectable && branchesOnError(data.extra) && (
        <AddNextButton nodeId={id} handle={ERROR_BRANCH} label={`Add a node on error of ${name}`} />
      )}
    </div>
  );
}

export const nodeTypes = { svc: SvcNode };
