import { describe, expect, it } from "vitest";
import { canonicalJson, lineDiff } from "./line-diff";

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe("the versions' line diff", () => {
  it("pairs a changed line with its replacement and keeps the others side by side", () => {
    const rows = lineDiff(
      json({ url: "https://a.test", method: "GET" }),
      json({ url: "https://b.test", method: "GET" }),
    )!;
    expect(rows.map((r) => r.kind)).toEqual(["same", "changed", "same", "same"]);
    expect(rows[1]).toEqual({
      kind: "changed",
      old: { n: 2, text: '  "url": "https://a.test",' },
      new: { n: 2, text: '  "url": "https://b.test",' },
    });
    expect(rows[2]!.old).toEqual({ n: 3, text: '  "method": "GET"' });
  });

  it("pads lone additions and removals, and numbers each side on its own", () => {
    const rows = lineDiff("a\nb\nc\n", "a\nc\nd\ne\n")!;
    expect(rows.map((r) => [r.kind, r.old?.n, r.new?.n])).toEqual([
      ["same", 1, 1],
      ["removed", 2, undefined],
      ["same", 3, 2],
      ["added", undefined, 3],
      ["added", undefined, 4],
    ]);
  });

  it("finds no difference between equal texts", () => {
    expect(lineDiff("x\ny", "x\ny")!.every((r) => r.kind === "same")).toBe(true);
  });

  it("prints keys in one order, so a reordered stored version shows no difference", () => {
    const canvas = {
      nodes: [{ id: "a", type: "http_request", config: { url: "u", method: "GET" } }],
      edges: [{ from: "a", to: "b" }],
    };
    // How jsonb returns it: shorter keys first.
    const stored = {
      edges: [{ to: "b", from: "a" }],
      nodes: [{ id: "a", type: "http_request", config: { method: "GET", url: "u" } }],
    };
    expect(canonicalJson(stored)).toBe(canonicalJson(canvas));
    expect(canonicalJson(canvas).split("\n").slice(0, 4)).toEqual(["{", '  "nodes": [', "    {", '      "id": "a",']);
    expect(lineDiff(canonicalJson(stored), canonicalJson(canvas))!.every((r) => r.kind === "same")).toBe(true);
  });
});
