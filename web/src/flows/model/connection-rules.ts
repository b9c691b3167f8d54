// What the editor refuses as an edge is drawn (a loop, a second edge between the same two nodes, a
// node joined to itself), in a few words, and a loop an imported flow may already hold.

interface Link {
  source: string;
  target: string;
}

/** Whether `to` can be reached from `from` along `edges`. */
function reaches(edges: readonly Link[], from: string, to: string): boolean {
  const seen = new Set<string>();
  const pending = [from];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (next === to) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const edge of edges) if (edge.source === next) pending.push(edge.target);
  }
  return false;
}

/** Why an edge from `source` to `target` may not be drawn, or null when it may. */
export function connectionProblem(
  edges: readonly Link[],
  source: string,
  target: string,
  labelOf: (id: string) => string = (id) => id,
): string | null {
  if (source === target) return "A node cannot lead to itself.";
  if (edges.some((edge) => edge.source === source && edge.target === target)) {
    return `${labelOf(source)} already leads to ${labelOf(target)}.`;
  }
  if (reaches(edges, target, source)) {
    return `That would make a loop: ${labelOf(target)} already leads to ${labelOf(source)}.`;
  }
  return null;
}

/** One loop of the graph as a closed path (a → b → a), or null when it has none. */
export function findLoop(ids: readonly string[], edges: readonly Link[]): string[] | null {
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, "visiting");
    path.push(id);
    for (const edge of edges) {
      if (edge.source !== id) continue;
      const seen = state.get(edge.target);
      if (seen === "visiting") return [...path.slice(path.indexOf(edge.target)), edge.target];
      if (!seen && ids.includes(edge.target)) {
        const loop = visit(edge.target);
        if (loop) return loop;
      }
    }
    path.pop();
    state.set(id, "done");
    return null;
  };
  for (const id of ids) {
    if (state.has(id)) continue;
    const loop = visit(id);
    if (loop) return loop;
  }
  return null;
}
