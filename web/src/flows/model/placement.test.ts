import { describe, expect, it } from "vitest";
import { FIRST_PLACE, PLACEMENT_GAP, placeAfter, rightmost, tooClose, type Box } from "./placement";

const SIZE = { width: 200, height: 64 };
const box = (x: number, y: number, size = SIZE): Box => ({ x, y, ...size });

describe("placeAfter", () => {
  it("places a node right of the one it follows, in its row, when that place is free", () => {
    const from = box(100, 200);
    expect(placeAfter(from, SIZE, [from])).toEqual({ x: 100 + 200 + PLACEMENT_GAP.x, y: 200 });
  });

  it("takes the nearest free row below, then above, when the row is taken", () => {
    const from = box(0, 0);
    const right = { x: 200 + PLACEMENT_GAP.x, y: 0 };
    const below = { x: right.x, y: SIZE.height + PLACEMENT_GAP.y };
    const above = { x: right.x, y: -(SIZE.height + PLACEMENT_GAP.y) };
    expect(placeAfter(from, SIZE, [from, box(right.x, right.y)])).toEqual(below);
    expect(placeAfter(from, SIZE, [from, box(right.x, right.y), box(below.x, below.y)])).toEqual(above);
  });

  it("never puts the node on another, however the others stand", () => {
    const from = box(0, 0);
    // A column of nodes right of `from`, a few px apart and shifted, and a tall one among them.
    const others = [from, ...Array.from({ length: 12 }, (_, i) => box(270 + (i % 3) * 15, -300 + i * 70))];
    others.push(box(260, 560, { width: 220, height: 400 }));
    const place = placeAfter(from, SIZE, others);
    expect(place.x).toBe(280);
    for (const other of others) expect(tooClose({ ...place, ...SIZE }, other, 0), JSON.stringify(other)).toBe(false);
  });
});

describe("rightmost", () => {
  it("is the box whose right edge is furthest right, or none on an empty canvas", () => {
    expect(rightmost([])).toBeUndefined();
    expect(rightmost([box(0, 0), box(300, 0, { width: 50, height: 64 }), box(200, 90)])).toEqual(box(200, 90));
    expect(FIRST_PLACE).toEqual({ x: 80, y: 80 });
  });
});
