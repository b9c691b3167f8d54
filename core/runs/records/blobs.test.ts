import { describe, expect, it } from "vitest";
import { replaceBlobRefs } from "./blobs.js";

describe("blob references inside a value", () => {
  it("are replaced wherever they sit, the rest copied as it is", () => {
    const value = { a: { $blob: "blob_1", bytes: 10 }, list: [1, { $blob: "blob_2", bytes: 20 }], text: "x" };
    expect(replaceBlobRefs(value, (ref) => `<${ref.$blob}:${ref.bytes}>`)).toEqual({
      a: "<blob_1:10>",
      list: [1, "<blob_2:20>"],
      text: "x",
    });
    expect(value.a).toEqual({ $blob: "blob_1", bytes: 10 });
  });

  it("leave a value that holds none as it is, without a copy", () => {
    const value = { a: [1, 2], b: { c: null } };
    expect(replaceBlobRefs(value, () => "never")).toBe(value);
    expect(replaceBlobRefs(null, () => "never")).toBeNull();
    expect(replaceBlobRefs({ $blob: "blob_3", bytes: 5 }, (ref) => ref.bytes)).toBe(5);
  });
});
