// The problems the editor shows: its own checks (once a save was tried, then live, so that each
// goes as it is fixed) and those the API reported on the last save (each until what it is about
// changes), placed on the nodes, their fields and the edges.
import { useMemo, useState } from "react";
import { ApiError } from "../api";
import type { CatalogEntry } from "../types";
import { checkFlow, mergeProblems, stillStanding, subjectsOf, type ProblemSubjects } from "./model/flow-checks";
import {
  locateProblems,
  noProblems,
  type EditorEdge,
  type EditorNode,
  type LocatedProblems,
} from "../components/flow-graph";

const countOf = (problems: LocatedProblems) =>
  [...problems.nodes.values()].reduce((sum, list) => sum + list.length, 0) +
  [...problems.edges.values()].reduce((sum, list) => sum + list.length, 0) +
  problems.other.length;

export function useFlowProblems(nodes: EditorNode[], edges: EditorEdge[], catalog: Map<string, CatalogEntry>) {
  const [checking, setChecking] = useState(false);
  const [reported, setReported] = useState<{ problems: LocatedProblems; subjects: ProblemSubjects } | null>(null);
  const labelOf = useMemo(() => {
    const names = new Map(nodes.map((n) => [n.id, n.data.name || n.id]));
    return (id: string) => names.get(id) ?? id;
  }, [nodes]);

  const own = useMemo(
    () => (checking ? checkFlow(nodes, edges, catalog, labelOf) : noProblems()),
    [checking, nodes, edges, catalog, labelOf],
  );
  const standing = useMemo(
    () => (reported ? stillStanding(reported.problems, reported.subjects, nodes, edges) : noProblems()),
    [reported, nodes, edges],
  );
  const shown = useMemo(() => mergeProblems(own, standing), [own, standing]);

  // The canvas's nodes and edges with their problems on them (the same objects when they have none).
  const shownNodes = useMemo(
    () =>
      nodes.map((node) => {
        const problems = shown.nodes.get(node.id)?.map((p) => p.message) ?? [];
        return problems.length === 0 && node.data.problems.length === 0
          ? node
          : { ...node, data: { ...node.data, problems } };
      }),
    [nodes, shown],
  );
  const shownEdges = useMemo(
    () =>
      edges.map((edge, index) => {
        const problems = shown.edges.get(index);
        if (!problems) return edge;
        const label = [edge.data?.branch, ...problems].filter(Boolean).join(": ");
        return { ...edge, label, className: "has-problem" };
      }),
    [edges, shown],
  );

  return {
    shown,
    shownNodes,
    shownEdges,
    /** How many of the editor's own problems stand (a save waits until there are none). */
    ownCount: countOf(own),
    /** How many of the API's last problems still stand. */
    reportedCount: countOf(standing),
    /** Before a save: turns the editor's checks on; true when there is nothing to fix first. */
    readyToSave(): boolean {
      setChecking(true);
      return countOf(checkFlow(nodes, edges, catalog, labelOf)) === 0;
    },
    /**
     * After a refused save: the API's problems, placed on what they name in the canvas as it was
     * sent (`sent`), and shown while that stays as it was.
     */
    report(error: unknown, sent: { nodes: EditorNode[]; edges: EditorEdge[] }) {
      if (!(error instanceof ApiError) || error.details.length === 0) return;
      const names = new Map(sent.nodes.map((n) => [n.id, n.data.name || n.id]));
      const problems = locateProblems(error.details, {
        nodeIds: sent.nodes.map((n) => n.id),
        edges: sent.edges.map((e) => ({ from: e.source, to: e.target })),
        fieldLabel: (nodeId, key) =>
          catalog.get(sent.nodes.find((n) => n.id === nodeId)?.data.type ?? "")?.config_schema?.[key]?.label ?? key,
        nodeLabel: (id) => names.get(id) ?? id,
      });
      setReported({ problems, subjects: subjectsOf(sent.nodes, sent.edges) });
    },
    /** After a save: nothing to show until the next one. */
    clear() {
      setChecking(false);
      setReported(null);
    },
  };
}
