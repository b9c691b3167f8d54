// Waiting work of several owners (workspaces), served round-robin: after an owner is served it
// goes to the back of the line, so one owner's flood waits behind one item of each other owner,
// never the other way round. Each owner's items keep their own order.

export class FairQueue<T> {
  // Map keeps insertion order: the line of owners with waiting items, the next to serve first.
  private readonly line = new Map<string, T[]>();

  get size(): number {
    let size = 0;
    for (const items of this.line.values()) size += items.length;
    return size;
  }

  push(owner: string, item: T): void {
    const items = this.line.get(owner);
    if (items) items.push(item);
    else this.line.set(owner, [item]);
  }

  /** The first item of the first owner in line that `may` serve now; that owner goes to the back. */
  take(may: (owner: string) => boolean): { owner: string; item: T } | undefined {
    for (const [owner, items] of this.line) {
      if (!may(owner)) continue;
      const item = items.shift()!;
      this.line.delete(owner);
      if (items.length > 0) this.line.set(owner, items);
      return { owner, item };
    }
    return undefined;
  }

  /** Removes an item that no longer waits (its caller gave up); false when it was not waiting. */
  remove(owner: string, item: T): boolean {
    const items = this.line.get(owner);
    const index = items?.indexOf(item) ?? -1;
    if (!items || index < 0) return false;
    items.splice(index, 1);
    if (items.length === 0) this.line.delete(owner);
    return true;
  }

  /** How many items of each owner are waiting, in line order. */
  counts(): Array<[owner: string, waiting: number]> {
    return [...this.line].map(([owner, items]) => [owner, items.length]);
  }

  /** Empties the queue, returning every item. */
  drain(): T[] {
    const items = [...this.line.values()].flat();
    this.line.clear();
    return items;
  }
}
