import { describe, expect, it } from "vitest";
import { apiBase } from "./api";

/** A document with at most one `<meta name="svc-api-base">`. */
const page = (content?: string) => ({
  querySelector: (selector: string) =>
    (selector === 'meta[name="svc-api-base"]' && content !== undefined ? { content } : null) as never,
});

describe("the API's origin for a dashboard hosted elsewhere", () => {
  it("is same-origin without a setting", () => {
    expect(apiBase(page())).toBe("");
    expect(apiBase(page("  "))).toBe("");
    expect(apiBase(undefined)).toBe("");
  });

  it("comes from index.html's meta, without trailing slashes", () => {
    expect(apiBase(page("https://api.example.com/"))).toBe("https://api.example.com");
    expect(apiBase(page(" http://127.0.0.1:3000 "))).toBe("http://127.0.0.1:3000");
  });
});
