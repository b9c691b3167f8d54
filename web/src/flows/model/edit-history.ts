// The editor's undo and redo: snapshots of the flow definition (as JSON text), one per settled
// change, at most `limit` kept. Recording the snapshot already current does nothing, so a state
// restored by undo or redo is not recorded again.
export class EditHistory {
  private entries: string[];
  private at = 0;

  constructor(
    initial: string,
    private readonly limit = 100,
  ) {
    this.entries = [initial];
  }

  /** Records a new state; what could be redone is dropped. */
  record(snapshot: string): void {
    if (snapshot === this.entries[this.at]) return;
    this.entries = [...this.entries.slice(0, this.at + 1), snapshot].slice(-this.limit);
    this.at = this.entries.length - 1;
  }

  /** The state before the current one, now current; undefined when there is none. */
  undo(): string | undefined {
    if (this.at === 0) return undefined;
    this.at -= 1;
    return this.entries[this.at];
  }

  /** The state an undo left, now current again; undefined when there is none. */
  redo(): string | undefined {
    if (this.at >= this.entries.length - 1) return undefined;
    this.at += 1;
    return this.entries[this.at];
  }

  get canUndo(): boolean {
    return this.at > 0;
  }

  get canRedo(): boolean {
    return this.at < this.entries.length - 1;
  }
}
