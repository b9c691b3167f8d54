// The editor's canvas: React Flow over the draft's nodes and edges (with their problems shown),
// a node dropped from the palette, edges drawn and refused, read-only on a phone.
import { Background, Controls, ReactFlow, useNodesInitialized, useReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useEffect, useState, type DragEvent } from "react";
import { ReadableZoom } from "../components/readable-zoom";
import { TestRunStates } from "../components/test-run";
import type { CatalogEntry } from "../types";
import { AddNextContext, NodePicker, type AddNextRequest } from "./add-next";
import { DRAG_TYPE } from "./palette";
import { PinnedNodes } from "./use-pins";
import { nodeTypes } from "./svc-node";
import type { FlowDraft } from "./use-flow-draft";

const focusNode = (id: string) =>
  document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus();

/** The "+" picker's state: open for one node's output, closed after a pick or Esc (focus back on the "+"). */
function useAddNext(draft: FlowDraft) {
  const [request, setRequest] = useState<AddNextRequest | null>(null);
  const close = (refocus: boolean) => {
    if (refocus) request?.button.focus();
    setRequest(null);
  };
  const pick = (type: string) => {
    const added = request && draft.edits.addNext(request.nodeId, request.handle, type);
    setRequest(null);
    // The new node takes the focus (its settings are open in the side panel), once it is drawn.
    if (added) window.requestAnimationFrame(() => focusNode(added));
  };
  return { request, open: setRequest, close, pick };
}

export function FlowCanvas(props: { draft: FlowDraft; catalog: CatalogEntry[]; narrow: boolean }) {
  const { draft, narrow } = props;
  const { graph, edits, problems } = draft;
  const addNext = useAddNext(draft);
  const { screenToFlowPosition } = useReactFlow();
  const initialized = useNodesInitialized();
  // For the browser test's measurement: every node of the flow is on the canvas and measured.
  useEffect(() => {
    if (initialized) performance.mark(`flow-rendered-${graph.nodes.length}`);
  }, [initialized, graph.nodes.length]);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const type = event.dataTransfer.getData(DRAG_TYPE);
    if (type) edits.addNode(type, screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };
  return (
    <div
      className="canvas"
      data-testid="canvas"
      onDrop={onDrop}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = "move";
      }}
    >
      <AddNextContext.Provider value={narrow ? null : addNext.open}>
        <TestRunStates.Provider value={draft.run.test.states}>
          <PinnedNodes.Provider value={draft.pins.pinned}>
            <ReactFlow
              nodes={problems.shownNodes}
              edges={problems.shownEdges}
              nodeTypes={nodeTypes}
              onNodesChange={(changes) => {
                graph.onNodesChange(changes);
                if (changes.some((c) => c.type === "position" || c.type === "remove")) graph.touch();
              }}
              onEdgesChange={(changes) => {
                graph.onEdgesChange(changes);
                if (changes.some((c) => c.type === "remove")) graph.touch();
              }}
              onConnect={edits.onConnect}
              isValidConnection={edits.isValidConnection}
              onConnectEnd={edits.onConnectEnd}
              nodesDraggable={!narrow}
              nodesConnectable={!narrow}
              deleteKeyCode={narrow ? null : ["Backspace", "Delete"]}
              minZoom={0.1}
            >
              <ReadableZoom />
              <Background />
              <Controls />
            </ReactFlow>
          </PinnedNodes.Provider>
        </TestRunStates.Provider>
      </AddNextContext.Provider>
      {addNext.request && (
        <NodePicker catalog={props.catalog} request={addNext.request} onPick={addNext.pick} onClose={addNext.close} />
      )}
    </div>
  );
}
