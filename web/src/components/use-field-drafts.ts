// Fields whose typed text does not read as their type (JSON that does not parse, a number that is
// not one): kept per node while another node is shown, and refusing a save that would store the
// last good value instead of what the field shows, naming each field.
import { useState } from "react";
import type { FieldDraft } from "./config-form";

/** The two forms of a node: its config, and its settings (timeout, retries, on_error). */
export type DraftForm = "config" | "settings";

interface DraftEntry extends FieldDraft {
  nodeId: string;
  form: DraftForm;
  key: string;
  label: string;
}

const keyOf = (nodeId: string, form: DraftForm, key: string) => `${nodeId}\u0000${form}\u0000${key}`;

/** "“Value” of Check amount: Value is not valid JSON (…)", one line per field. */
export function draftProblems(entries: Iterable<DraftEntry>, labelOf: (nodeId: string) => string): string[] {
  return [...entries].map((entry) => `“${entry.label}” of ${labelOf(entry.nodeId)}: ${entry.error}`);
}

export function useFieldDrafts(nodeIds: readonly string[]) {
  const [drafts, setDrafts] = useState<ReadonlyMap<string, DraftEntry>>(new Map());
  const [saveTried, setSaveTried] = useState(false);
  // A removed node's drafts go with it.
  const standing = [...drafts.values()].filter((entry) => nodeIds.includes(entry.nodeId));
  return {
    /** The drafts of one node's form, by field key. */
    of(nodeId: string, form: DraftForm): Record<string, FieldDraft> | undefined {
      const found = standing.filter((entry) => entry.nodeId === nodeId && entry.form === form);
      return found.length > 0 ? Object.fromEntries(found.map((entry) => [entry.key, entry])) : undefined;
    },
    /** A field's text stopped parsing (its draft), or parses again (null). */
    set(nodeId: string, form: DraftForm, field: { key: string; label: string }, draft: FieldDraft | null) {
      const id = keyOf(nodeId, form, field.key);
      setDrafts((current) => {
        if (!draft && !current.has(id)) return current;
        const next = new Map(current);
        if (draft) next.set(id, { ...draft, nodeId, form, key: field.key, label: field.label });
        else next.delete(id);
        return next;
      });
    },
    /** Before a save: true when every field reads as its type; else the save waits, and `problems` says why. */
    readyToSave(): boolean {
      setSaveTried(true);
      return standing.length === 0;
    },
    /** After a save: nothing to say until the next one. */
    saved: () => setSaveTried(false),
    /** Once a save was tried: each field that does not parse, named with its node. */
    problems: (labelOf: (nodeId: string) => string) => (saveTried ? draftProblems(standing, labelOf) : []),
  };
}
