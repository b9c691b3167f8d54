import { describe, expect, it } from "vitest";
import { NodeError } from "../nodes/node-error.js";
import { REDACTED, redactSecrets } from "./node-credentials.js";

describe("redactSecrets", () => {
  const secrets = ["tok-123456", "tok-123456789", "short"];

  it("replaces every secret at any depth, the longest first, and leaves short ones (they match ordinary text)", () => {
    const value = {
      headers: { authorization: "Bearer tok-123456789", "x-echo": ["tok-123456", "a tok-123456 b"] },
      body: "short words",
      status: 200,
      nothing: null,
    };
    expect(redactSecrets(value, secrets)).toEqual({
      headers: { authorization: `Bearer ${REDACTED}`, "x-echo": [REDACTED, `a ${REDACTED} b`] },
      body: "short words",
      status: 200,
      nothing: null,
    });
  });

  it("makes errors anew, of the same kind, without the secret in message, details, cause or stack", () => {
    const original = new NodeError("GET https://x/?key=tok-123456 answered 500", {
      retryable: true,
      details: { body: "you sent tok-123456" },
    });
    const scrubbed = redactSecrets(original, secrets);
    expect(scrubbed).toBeInstanceOf(NodeError);
    expect(scrubbed).toMatchObject({
      name: "NodeError",
      retryable: true,
      message: `GET https://x/?key=${REDACTED} answered 500`,
      details: { body: `you sent ${REDACTED}` },
    });
    expect(scrubbed.stack).not.toContain("tok-123456");

    const plain = Object.assign(new Error("Refused https://x/?key=tok-123456", { cause: new Error("tok-123456") }), {
      name: "EgressRefusedError",
      rule: "loopback address",
    });
    const cleaned = redactSecrets(plain, secrets) as Error & { rule: string };
    expect(cleaned).toMatchObject({ name: "EgressRefusedError", rule: "loopback address" });
    expect(cleaned.message).toBe(`Refused https://x/?key=${REDACTED}`);
    expect(cleaned.cause).toBeUndefined();
  });
});
