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

describe("placeAfter from a node's outputs", () => {
  const step = SIZE.height + PLACEMENT_GAP.y;
  const x = 200 + PLACEMENT_GAP.x;

  it("puts the false branch's node below the true one's, whichever is added first", () => {
    const check = box(0, 0);
    const onTrue = placeAfter(check, SIZE, [check], 0);
    const onFalse = placeAfter(check, SIZE, [check, box(onTrue.x, onTrue.y)], 1);
    expect(onTrue).toEqual({ x, y: 0 });
    expect(onFalse).toEqual({ x, y: step });

    const falseFirst = placeAfter(check, SIZE, [check], 1);
    const trueAfter = placeAfter(check, SIZE, [check, box(falseFirst.x, falseFirst.y)], 0);
    expect(falseFirst).toEqual({ x, y: step });
    expect(trueAfter).toEqual({ x, y: 0 });
    expect(trueAfter.y).toBeLessThan(falseFirst.y);
  });

  it("takes the nearest free row to its output's when that one is taken, on no other node", () => {
    const route = box(0, 0);
    // The third output's row and the one below it are taken: the row above it is the nearest free one.
    const others = [route, box(x, 2 * step), box(x, 3 * step)];
    const place = placeAfter(route, SIZE, others, 2);
    expect(place).toEqual({ x, y: step });
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
