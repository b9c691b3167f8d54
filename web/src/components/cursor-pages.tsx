// Paging through a list the API answers a page at a time ({ items, next_cursor }): the cursors of
// the pages behind this one, so "Newer" goes back without the API knowing a previous cursor.
import { useState } from "react";

export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    /** The cursor of the page shown (undefined: the first page). */
    cursor: cursors.at(-1),
    /** Back to the first page (after a filter changes). */
    reset: () => setCursors([]),
    /** "Newer" and "Older" buttons for a page whose answer carried `nextCursor`. */
    pager: (nextCursor: string | null | undefined) => (
      <div className="pager">
        {cursors.length > 0 && (
          <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </button>
        )}
        {nextCursor && (
          <button type="button" onClick={() => setCursors((c) => [...c, nextCursor])}>
            Older
          </button>
        )}
      </div>
    ),
  };
}
