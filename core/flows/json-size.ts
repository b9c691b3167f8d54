// The size of a JSON value as text, measured without writing it, and no further than a limit: the
// walk visits at most one value per byte it counts, so measuring costs no more than the limit
// allows, whatever the value's size or depth (it keeps its own stack: no recursion).

/** Bytes of a value that is not an object or array, as JSON would write it (about: escapes aside). */
export function scalarJsonSize(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number") return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === "boolean") return value ? 4 : 5;
  return 4;
}

/**
 * The value's size as JSON text (strings counted by their length), or a number above `limit` as
 * soon as it is clear the value is larger.
 */
export function jsonSizeWithin(value: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object") {
      size += scalarJsonSize(item);
    } else if (Array.isArray(item)) {
      // Brackets and commas first: they pay for pushing the items.
      size += item.length + 2;
      if (size > limit) return size;
      for (let i = item.length - 1; i >= 0; i -= 1) pending.push(item[i]);
    } else {
      size += 2;
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        size += key.length + 4;
        if (size > limit) return size;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
    if (size > limit) return size;
  }
  return size;
}
