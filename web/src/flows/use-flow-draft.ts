// The editor's draft: the canvas's nodes and edges, the definition's own settings, whether it is
// saved, and what acts on it (edits, undo and redo, save, test and run), for the editor's parts.
import { useExpressionHelp } from "../components/use-expression-help";
import { useFieldDrafts } from "../components/use-field-drafts";
import type { CatalogEntry, FlowDetail } from "../types";
import { useDraftGraph } from "./use-draft-graph";
import { useDraftRun } from "./use-draft-run";
import { useDraftSave } from "./use-draft-save";
import { useEditHistory } from "./use-edit-history";
import { useFlowProblems } from "./use-flow-problems";
import { useGraphEdits } from "./use-graph-edits";

export function useFlowDraft(flow: FlowDetail, byType: Map<string, CatalogEntry>) {
  const graph = useDraftGraph(flow, byType);
  const problems = useFlowProblems(graph.nodes, graph.edges, byType);
  const drafts = useFieldDrafts(graph.nodes.map((node) => node.id));
  const help = useExpressionHelp(flow.id, graph.edges);
  const checks = { problems, drafts };
  const history = useEditHistory(graph);
  const edits = useGraphEdits(graph, byType);
  const save = useDraftSave(flow, graph, checks);
  const run = useDraftRun(flow, graph, checks);
  return { graph, problems, drafts, help, history, edits, save, run };
}

export type FlowDraft = ReturnType<typeof useFlowDraft>;
