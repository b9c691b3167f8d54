// Paging through a list the API answers a page at a time ({ items, next_cursor }): the cursors of
// the pages behind this one, so going back needs no previous cursor from the API.
import { useState } from "react";

/** What the two buttons say: "Newer"/"Older" for lists newest first, "Previous"/"Next" for the rest. */
export interface PagerLabels {
  back: string;
  forward: string;
}

const NEWEST_FIRST: PagerLabels = { back: "Newer", forward: "Older" };
export const IN_ORDER: PagerLabels = { back: "Previous", forward: "Next" };

export function useCursorPages({
  labels = NEWEST_FIRST,
  resetOn = [],
  held,
}: {
  labels?: PagerLabels;
  /** What the list is filtered by: when any of it changes, paging starts over at the first page. */
  resetOn?: readonly unknown[];
  /** The cursors behind the page shown, held by the caller (the page's address) instead of here. */
  held?: { cursors: string[]; onChange: (cursors: string[]) => void };
} = {}) {
  const key = JSON.stringify(resetOn);
  const [paged, setOwn] = useState<{ key: string; cursors: string[] }>({ key, cursors: [] });
  // Worked out while rendering: a query never pairs a new filter with an old filter's cursor.
  const cursors = held ? held.cursors : paged.key === key ? paged.cursors : [];
  const setPaged = (next: { key: string; cursors: string[] }) => (held ? held.onChange(next.cursors) : setOwn(next));
  const cursor = cursors.at(-1);
  return {
    /** The cursor of the page shown (undefined: the first page); part of the page's query key. */
    cursor,
    /** The two buttons for a page whose answer carried `nextCursor`. */
    pager: (nextCursor: string | null | undefined) => (
      <div className="pager">
        {cursors.length > 0 && (
          <button type="button" onClick={() => setPaged({ key, cursors: cursors.slice(0, -1) })}>
            {labels.back}
          </button>
        )}
        {nextCursor && (
          <button type="button" onClick={() => setPaged({ key, cursors: [...cursors, nextCursor] })}>
            {labels.forward}
          </button>
        )}
      </div>
    ),
  };
}
