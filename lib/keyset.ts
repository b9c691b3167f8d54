// Keyset paging over Prisma: the rows after the last one a page showed, by its sort key.

type Bound<V> = { gt?: V; lt?: V };

/** The sort key of the last row of a page, in a list ordered by a time and an id. */
export interface TimeIdKey {
  time: Date;
  id: string;
}

/**
 * Prisma's condition for the rows after a (time, id) key in a list ordered by both: later ones
 * when the list is oldest first ("asc"), earlier ones when newest first ("desc").
 */
export function afterTimeAndId<T extends string, I extends string>(
  after: TimeIdKey | undefined,
  fields: { time: T; id: I },
  order: "asc" | "desc",
): { OR?: Array<Partial<Record<T, Date | Bound<Date>>> & Partial<Record<I, Bound<string>>>> } {
  if (!after) return {};
  const beyond = order === "asc" ? "gt" : "lt";
  return {
    OR: [
      { [fields.time]: { [beyond]: after.time } },
      { [fields.time]: after.time, [fields.id]: { [beyond]: after.id } },
    ] as Array<Partial<Record<T, Date | Bound<Date>>> & Partial<Record<I, Bound<string>>>>,
  };
}
