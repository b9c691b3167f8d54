// Graph algorithms over a flow definition. Pure and deterministic: workflows import this too.

export interface GraphNode {
  id: string;
}
export interface GraphEdge {
  from: string;
  to: string;
}

export interface FlowGraph {
  ids: string[];
  parents: Map<string, string[]>;
  children: Map<string, string[]>;
}

/** Adjacency in definition order; edges naming unknown nodes are ignored (validation reports them). */
export function buildGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): FlowGraph {
  const ids = nodes.map((n) => n.id);
  const parents = new Map<string, string[]>(ids.map((id) => [id, []]));
  const children = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const edge of edges) {
    if (!parents.has(edge.to) || !children.has(edge.from)) continue;
    if (!parents.get(edge.to)!.includes(edge.from)) parents.get(edge.to)!.push(edge.from);
    if (!children.get(edge.from)!.includes(edge.to)) children.get(edge.from)!.push(edge.to);
  }
  return { ids, parents, children };
}

/** One cycle as a closed path (`a → b → a`), or undefined for a DAG. */
export function findCycle(graph: FlowGraph): string[] | undefined {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, "visiting");
    stack.push(id);
    for (const child of graph.children.get(id) ?? []) {
      const seen = state.get(child);
      if (seen === "visiting") return [...stack.slice(stack.indexOf(child)), child];
      if (!seen) {
        const cycle = visit(child);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of graph.ids) {
    if (!state.has(id)) {
      const cycle = visit(id);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

/** Kahn's algorithm; among ready nodes the one defined first goes first, so the order is stable. */
export function topologicalOrder(graph: FlowGraph): string[] {
  const position = new Map(graph.ids.map((id, index) => [id, index]));
  const waiting = new Map(graph.ids.map((id) => [id, graph.parents.get(id)!.length]));
  const ready = graph.ids.filter((id) => waiting.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const next = ready.shift()!;
    order.push(next);
    for (const child of graph.children.get(next)!) {
      const left = waiting.get(child)! - 1;
      waiting.set(child, left);
      if (left === 0) {
        ready.push(child);
        ready.sort((a, b) => position.get(a)! - position.get(b)!);
      }
    }
  }
  if (order.length !== graph.ids.length) throw new Error("the graph has a cycle");
  return order;
}

/** Every node from which `id` can be reached. */
export function ancestorsOf(graph: FlowGraph, id: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(graph.parents.get(id) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(graph.parents.get(next) ?? []));
  }
  return seen;
}
