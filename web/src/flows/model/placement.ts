// Where a node added by a click goes ("+" on an output, a double-click in the palette): right of
// the node it follows, in that node's row (or its output's row) if the place is free, else the
// nearest free row below or above it; never on another node.
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Point = { x: number; y: number };

/** The room between a node and the one it follows, and between rows (an edge and its label fit). */
export const PLACEMENT_GAP = { x: 80, y: 40 };
/** Where the first node of an empty canvas goes. */
export const FIRST_PLACE: Point = { x: 80, y: 80 };

/** Whether two boxes come closer than `margin` (touching counts as too close). */
export function tooClose(a: Box, b: Box, margin: number): boolean {
  return (
    a.x < b.x + b.width + margin &&
    b.x < a.x + a.width + margin &&
    a.y < b.y + b.height + margin &&
    b.y < a.y + a.height + margin
  );
}

/** The rows tried in turn: the node's own, then one row lower, one higher, two lower, two higher... */
const rowOffset = (attempt: number, step: number) =>
  attempt === 0 ? 0 : Math.ceil(attempt / 2) * step * (attempt % 2 === 1 ? 1 : -1);

/**
 * A free place for a box of `size` right of `after`, clear of every box in `others` by half a row
 * gap. `row` is the row it prefers, counted down from `after`'s: a node's n-th output (a
 * condition's false, a branch node's second case, an error output) puts its next node n rows
 * lower, so the nodes of its outputs stand in the order of the outputs.
 */
export function placeAfter(
  after: Box,
  size: { width: number; height: number },
  others: readonly Box[],
  row = 0,
): Point {
  const x = after.x + after.width + PLACEMENT_GAP.x;
  const step = size.height + PLACEMENT_GAP.y;
  const y = after.y + row * step;
  // Each other box blocks a few rows at most, so one of the first `blocked + 1` rows tried is free.
  const blocked = others.reduce(
    (sum, other) => sum + Math.ceil((other.height + size.height + PLACEMENT_GAP.y) / step) + 1,
    0,
  );
  for (let attempt = 0; attempt <= blocked; attempt++) {
    const place = { x, y: y + rowOffset(attempt, step) };
    if (!others.some((other) => tooClose({ ...place, ...size }, other, PLACEMENT_GAP.y / 2))) return place;
  }
  return { x, y: y + rowOffset(blocked + 1, step) };
}

/** The box furthest right (its right edge), that a node added with nothing selected follows. */
export function rightmost(boxes: readonly Box[]): Box | undefined {
  return boxes.reduce<Box | undefined>(
    (best, box) => (!best || box.x + box.width > best.x + best.width ? box : best),
    undefined,
  );
}
