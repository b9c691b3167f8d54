// The editor's side panel (the inspector): the selected node's settings, the selected edge's
// branch label, or, with nothing selected, running the flow and its own settings.
import type { EditorEdge } from "../components/flow-graph";
import type { CatalogEntry, Credential, FlowDetail } from "../types";
import { NodePanel } from "./node-panel";
import { RunPanel } from "./run-panel";
import type { FlowDraft } from "./use-flow-draft";

function EdgePanel({ edge, draft }: { edge: EditorEdge; draft: FlowDraft }) {
  return (
    <div>
      <h2>Edge</h2>
      <p className="muted">
        {edge.source} → {edge.target}
      </p>
      <label className="field">
        Branch label (condition: true / false; branch: a case or default; wait: approved / rejected, resumed, timeout;
        error: from the error handle of a node set to branch on error)
        <input
          name="edge-branch"
          value={edge.data?.branch ?? ""}
          onChange={(e) => draft.edits.setEdgeBranch(edge.id, e.target.value || undefined)}
        />
      </label>
    </div>
  );
}

export function SidePanel(props: {
  flow: FlowDetail;
  draft: FlowDraft;
  byType: Map<string, CatalogEntry>;
  narrow: boolean;
  credentials: Credential[] | undefined;
}) {
  const { flow, draft, byType } = props;
  const selectedNode = draft.graph.nodes.find((n) => n.selected);
  const selectedEdge = draft.graph.edges.find((e) => e.selected);
  return (
    <aside className="inspector" aria-label="Inspector">
      {selectedNode ? (
        <NodePanel
          key={selectedNode.id}
          node={selectedNode}
          draft={draft}
          entry={byType.get(selectedNode.data.type)}
          flowId={flow.id}
          narrow={props.narrow}
          credentials={props.credentials}
        />
      ) : selectedEdge ? (
        <EdgePanel edge={selectedEdge} draft={draft} />
      ) : (
        <RunPanel flow={flow} draft={draft} />
      )}
    </aside>
  );
}
