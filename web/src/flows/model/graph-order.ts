// The order a flow's nodes run in, as the engine takes them: a node after all its parents, and
// among nodes ready together the one defined first (Kahn's algorithm, as core/flows/graph.ts).

/**
 * Node ids in graph order. Edges naming unknown nodes are ignored; nodes on a cycle (which the
 * editor refuses, but an imported flow may have) come last, in definition order.
 */
export function graphOrder(ids: readonly string[], edges: ReadonlyArray<{ from: string; to: string }>): string[] {
  const position = new Map(ids.map((id, index) => [id, index]));
  const children = new Map(ids.map((id) => [id, new Set<string>()]));
  const waiting = new Map(ids.map((id) => [id, 0]));
  for (const { from, to } of edges) {
    const out = children.get(from);
    if (!out || !waiting.has(to) || out.has(to)) continue;
    out.add(to);
    waiting.set(to, waiting.get(to)! + 1);
  }
  const ready = ids.filter((id) => waiting.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const next = ready.shift()!;
    order.push(next);
    for (const child of children.get(next)!) {
      const left = waiting.get(child)! - 1;
      waiting.set(child, left);
      if (left === 0) {
        ready.push(child);
        ready.sort((a, b) => position.get(a)! - position.get(b)!);
      }
    }
  }
  const placed = new Set(order);
  return [...order, ...ids.filter((id) => !placed.has(id))];
}
