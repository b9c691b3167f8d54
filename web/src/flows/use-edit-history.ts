// Undo and redo: the definition once each change settles (a drag records where it ended), with
// Ctrl+Z (⌘Z) to undo and Ctrl+Shift+Z or Ctrl+Y to redo; text fields keep their own undo.
import { useCallback, useEffect, useRef, useState } from "react";
import type { FlowDefinition } from "../types";
import { EditHistory } from "./model/edit-history";
import type { DraftGraph } from "./use-draft-graph";

export function useEditHistory(graph: DraftGraph) {
  const { definition } = graph;
  const history = useRef<EditHistory | null>(null);
  history.current ??= new EditHistory(JSON.stringify(definition));
  const [, historyChanged] = useState(0);
  const recordNow = useCallback(() => {
    history.current!.record(JSON.stringify(definition));
    historyChanged((n) => n + 1);
  }, [definition]);
  useEffect(() => {
    const timer = setTimeout(recordNow, 300);
    return () => clearTimeout(timer);
  }, [recordNow]);
  const step = (direction: "undo" | "redo") => {
    recordNow();
    const snapshot = direction === "undo" ? history.current!.undo() : history.current!.redo();
    if (snapshot === undefined) return;
    graph.load(JSON.parse(snapshot) as FlowDefinition);
    historyChanged((n) => n + 1);
    graph.touch();
  };
  const stepRef = useRef(step);
  stepRef.current = step;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      const key = event.key.toLowerCase();
      if (key === "z" || key === "y") {
        event.preventDefault();
        stepRef.current(key === "y" || event.shiftKey ? "redo" : "undo");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return { canUndo: history.current.canUndo, canRedo: history.current.canRedo, step };
}
