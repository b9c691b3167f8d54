// The editor's draft: the canvas's nodes and edges, the definition's own settings, whether it is
// saved, its pinned data, the run it was opened from, and what acts on it (edits, undo and redo,
// save, publish, test and run), for the editor's parts.
import { useExpressionHelp } from "../components/use-expression-help";
import { useFieldDrafts } from "../components/use-field-drafts";
import type { CatalogEntry, FlowDefinition, FlowDetail } from "../types";
import { useDraftGraph } from "./use-draft-graph";
import { useDraftRun } from "./use-draft-run";
import { useDraftSave } from "./use-draft-save";
import { useEditHistory } from "./use-edit-history";
import { useFlowProblems } from "./use-flow-problems";
import { useFlowVersions } from "./use-flow-versions";
import { useFromRun } from "./use-from-run";
import { useGraphEdits } from "./use-graph-edits";
import { usePins } from "./use-pins";
import { usePublish } from "./use-publish";

/** `head`: the definition the editor opens, the draft's when there is one, else the published one. */
export function useFlowDraft(flow: FlowDetail, head: FlowDefinition, byType: Map<string, CatalogEntry>) {
  const graph = useDraftGraph(head, byType);
  const problems = useFlowProblems(graph.nodes, graph.edges, byType);
  const drafts = useFieldDrafts(graph.nodes.map((node) => node.id));
  const pins = usePins(flow.id);
  const fromRun = useFromRun(flow.id);
  const help = useExpressionHelp(flow.id, graph.edges, { run: fromRun.run, pinned: pins.outputs });
  const checks = { problems, drafts };
  const history = useEditHistory(graph);
  const edits = useGraphEdits(graph, byType);
  const versions = useFlowVersions(flow);
  const save = useDraftSave(flow, graph, checks, versions);
  const publish = usePublish(flow, graph, versions, save);
  const run = useDraftRun(flow, graph, checks, pins.pins);
  return { graph, problems, drafts, help, history, edits, versions, save, publish, run, pins, fromRun };
}

export type FlowDraft = ReturnType<typeof useFlowDraft>;
