import { describe, expect, it } from "vitest";
import { tidyPositions } from "./auto-layout";

describe("tidy up", () => {
  it("places each node right of its parents, and nodes of one layer apart", () => {
    const positions = tidyPositions(
      [{ id: "start" }, { id: "left", width: 200, height: 80 }, { id: "right" }, { id: "end" }],
      [
        { source: "start", target: "left" },
        { source: "start", target: "right" },
        { source: "left", target: "end" },
        { source: "right", target: "end" },
      ],
    );
    const at = (id: string) => positions.get(id)!;
    expect(at("left").x).toBeGreaterThan(at("start").x);
    expect(at("right").x).toBeGreaterThan(at("start").x);
    expect(at("end").x).toBeGreaterThan(Math.max(at("left").x, at("right").x));
    // Same layer, not on top of each other.
    expect(Math.abs(at("left").y - at("right").y)).toBeGreaterThanOrEqual(60);
  });
});
