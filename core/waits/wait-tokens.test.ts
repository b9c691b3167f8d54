import { describe, expect, it } from "vitest";
import { hashResumeToken, newResumeToken, RESUME_TOKEN } from "./wait-tokens.js";

describe("resume tokens", () => {
  it("are 256 random bits in a shape the resume endpoint recognises, never the same twice", () => {
    const tokens = Array.from({ length: 50 }, newResumeToken);
    for (const token of tokens) expect(token).toMatch(RESUME_TOKEN);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("are stored as their SHA-256 only, which does not contain them", () => {
    const token = newResumeToken();
    const hash = hashResumeToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashResumeToken(token));
    expect(hash).not.toContain(token.slice(3));
    expect(hashResumeToken(newResumeToken())).not.toBe(hash);
  });
});
