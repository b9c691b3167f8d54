// A line diff of two texts (jsdiff), paired into rows for a split view: a removed line beside the
// line that replaced it, unchanged lines beside each other, lone additions and removals padded.
import { diffLines } from "diff";

export interface DiffLine {
  /** 1-based line number on its side. */
  n: number;
  text: string;
}

export interface DiffRow {
  kind: "same" | "changed" | "removed" | "added";
  old?: DiffLine;
  new?: DiffLine;
}

/** A 200-node flow is a few thousand lines: past this budget the texts are shown unpaired. */
const DIFF_TIMEOUT_MS = 1_000;

/** Keys a reader looks for first in a node or an edge; every other key follows alphabetically. */
const LEADING_KEYS = ["id", "type", "name", "from", "to", "branch", "nodes", "edges"];
const keyRank = (key: string) => {
  const rank = LEADING_KEYS.indexOf(key);
  return rank === -1 ? LEADING_KEYS.length : rank;
};

/**
 * Pretty-printed JSON with keys in one stable order: PostgreSQL's jsonb hands stored versions back
 * with their keys reordered, and a diff must show what changed, not where a key was written.
 */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== "object") return v;
    const keys = Object.keys(v).sort((a, b) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(keys.map((key) => [key, sorted((v as Record<string, unknown>)[key])]));
  };
  return value === undefined ? "" : JSON.stringify(sorted(value), null, 2);
}

const linesOf = (value: string) => value.replace(/\n$/, "").split("\n");

/** Rows of the split view, or undefined when the texts are too far apart to diff in time. */
export function lineDiff(oldText: string, newText: string): DiffRow[] | undefined {
  const changes = diffLines(oldText, newText, { timeout: DIFF_TIMEOUT_MS });
  if (!changes) return undefined;
  const rows: DiffRow[] = [];
  let oldN = 0;
  let newN = 0;
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (!change.added && !change.removed) {
      for (const text of linesOf(change.value)) {
        rows.push({ kind: "same", old: { n: ++oldN, text }, new: { n: ++newN, text } });
      }
      continue;
    }
    // jsdiff reports a replacement as a removal followed by an addition: pair them line by line.
    const removed = change.removed ? linesOf(change.value) : [];
    const next = changes[i + 1];
    const added = change.added ? linesOf(change.value) : next?.added ? linesOf(next.value) : [];
    if (change.removed && next?.added) i++;
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const old = k < removed.length ? { n: ++oldN, text: removed[k]! } : undefined;
      const neu = k < added.length ? { n: ++newN, text: added[k]! } : undefined;
      rows.push({ kind: old && neu ? "changed" : old ? "removed" : "added", old, new: neu });
    }
  }
  return rows;
}
