import { describe, expect, it } from "vitest";
import { READABLE_ZOOM, readableViewport } from "./readable-zoom";

describe("the zoom a canvas opens at", () => {
  const canvas = { width: 700, height: 500 };

  it("fits a flow that is readable whole", () => {
    expect(readableViewport({ x: 0, y: 0, width: 600, height: 200 }, canvas)).toBeNull();
  });

  it("shows a wide flow's start at a readable zoom, centred in height, rather than shrinking it", () => {
    const viewport = readableViewport({ x: 40, y: 100, width: 2000, height: 200 }, canvas)!;
    expect(viewport.zoom).toBe(READABLE_ZOOM);
    // The first layer's left edge is on screen, just inside the canvas.
    expect(viewport.x + 40 * viewport.zoom).toBe(24);
    expect(viewport.y + (100 + 100) * viewport.zoom).toBe(250);
  });

  it("starts a tall flow at its top", () => {
    const viewport = readableViewport({ x: 0, y: 30, width: 300, height: 3000 }, canvas)!;
    expect(viewport.y + 30 * viewport.zoom).toBe(24);
  });
});
