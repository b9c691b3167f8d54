// The editor's draft: the canvas's nodes and edges, the definition's own settings, whether it is
// saved, its pinned data, the run it was opened from, and what acts on it (edits, undo and redo,
// save, test and run), for the editor's parts.
import { useExpressionHelp } from "../components/use-expression-help";
import { useFieldDrafts } from "../components/use-field-drafts";
import type { CatalogEntry, FlowDetail } from "../types";
import { useDraftGraph } from "./use-draft-graph";
import { useDraftRun } from "./use-draft-run";
import { useDraftSave } from "./use-draft-save";
import { useEditHistory } from "./use-edit-history";
import { useFlowProblems } from "./use-flow-problems";
import { useFromRun } from "./use-from-run";
import { useGraphEdits } from "./use-graph-edits";
import { usePins } from "./use-pins";

export function useFlowDraft(flow: FlowDetail, byType: Map<string, CatalogEntry>) {
  const graph = useDraftGraph(flow, byType);
  const problems = useFlowProblems(graph.nodes, graph.edges, byType);
  const drafts = useFieldDrafts(graph.nodes.map((node) => node.id));
  const pins = usePins(flow.id);
  const fromRun = useFromRun(flow.id);
  const help = useExpressionHelp(flow.id, graph.edges, { run: fromRun.run, pinned: pins.outputs });
  const checks = { problems, drafts };
  const history = useEditHistory(graph);
  const edits = useGraphEdits(graph, byType);
  const save = useDraftSave(flow, graph, checks);
  const run = useDraftRun(flow, graph, checks, pins.pins);
  return { graph, problems, drafts, help, history, edits, save, run, pins, fromRun };
}

export type FlowDraft = ReturnType<typeof useFlowDraft>;
