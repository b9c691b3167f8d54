// The draft's graph: the canvas's nodes and edges, the definition's own settings, whether it is
// saved and what was last said about it; what every part of the draft (useFlowDraft) reads and changes.
import { useEdgesState, useNodesState } from "@xyflow/react";
import { useCallback, useMemo, useState } from "react";
import { toDefinition, toEditor, type EditorEdge, type EditorNode, type FlowSettings } from "../components/flow-graph";
import type { useFieldDrafts } from "../components/use-field-drafts";
import type { CatalogEntry, FlowDefinition } from "../types";
import type { useFlowProblems } from "./use-flow-problems";

/** The canvas's state and its setters: what every part of the draft reads and changes. */
export function useDraftGraph(head: FlowDefinition, byType: Map<string, CatalogEntry>) {
  const initial = useMemo(() => toEditor(head, byType), [head, byType]);
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<EditorEdge>(initial.edges);
  // The definition's own fields (its error flow, a builder's data): kept through every save.
  const [settings, setSettings] = useState<FlowSettings>(initial.settings);
  // The canvas as a flow definition: what save and export send, and what a version is compared with.
  const definition = useMemo(() => toDefinition(nodes, edges, settings), [nodes, edges, settings]);
  const [dirty, setDirty] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Why the last edge drawn was refused (a loop, a second edge between two nodes). */
  const [refusedEdge, setRefusedEdge] = useState<string | null>(null);
  const touch = useCallback(() => {
    setDirty(true);
    setNotice(null);
    setRefusedEdge(null);
  }, []);
  /** Puts a stored definition on the canvas (an undo, a restored version). */
  const load = useCallback(
    (stored: FlowDefinition) => {
      const restored = toEditor(stored, byType);
      setNodes(restored.nodes);
      setEdges(restored.edges);
      setSettings(restored.settings);
    },
    [byType, setNodes, setEdges],
  );
  const labelOf = (id: string) => nodes.find((n) => n.id === id)?.data.name || id;
  return {
    ...{ nodes, setNodes, onNodesChange, edges, setEdges, onEdgesChange, settings, setSettings, definition },
    ...{ dirty, setDirty, notice, setNotice, refusedEdge, setRefusedEdge, touch, load, labelOf },
  };
}

export type DraftGraph = ReturnType<typeof useDraftGraph>;

/** The editor's own checks and the fields that do not read as their types: both stop a save or a test. */
export interface DraftChecks {
  problems: ReturnType<typeof useFlowProblems>;
  drafts: ReturnType<typeof useFieldDrafts>;
}
