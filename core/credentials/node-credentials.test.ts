import { describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { CredentialNotFound, CredentialUnreadable } from "../errors.js";
import { NodeError } from "../nodes/node-error.js";
import { createNodeCredentials, REDACTED, redactSecrets } from "./node-credentials.js";

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

  it("scrubs keys too, at any depth and in arrays, and a secret in any case (a header name comes lower-cased)", () => {
    const token = "Tok-AbCdEf-0123";
    const value = {
      [`Bearer ${token}`]: "x",
      nested: { deep: [{ [token]: { [`prefix-${token}-suffix`]: token } }] },
      headers: { [`x-echo-${token.toLowerCase()}`]: "1", "x-upper": token.toUpperCase() },
    };
    expect(redactSecrets(value, [token])).toEqual({
      [`Bearer ${REDACTED}`]: "x",
      nested: { deep: [{ [REDACTED]: { [`prefix-${REDACTED}-suffix`]: REDACTED } }] },
      headers: { [`x-echo-${REDACTED}`]: "1", "x-upper": REDACTED },
    });
    // Characters a pattern would read as syntax are matched as themselves.
    expect(redactSecrets({ "a.b*c+d?(e)": "a.b*c+d?(e) axbxcxdxex" }, ["a.b*c+d?(e)"])).toEqual({
      [REDACTED]: `${REDACTED} axbxcxdxex`,
    });
  });

  it("scrubs the keys of an error's details", () => {
    const scrubbed = redactSecrets(
      new NodeError("GET https://x/ answered 400", { retryable: false, details: { body: { "tok-123456": "seen" } } }),
      secrets,
    );
    expect(scrubbed.details).toEqual({ body: { [REDACTED]: "seen" } });
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

describe("node credentials", () => {
  const host = (open: () => Promise<never>, resolve: () => Promise<string | undefined>) =>
    createNodeCredentials({
      credentials: { open },
      apiKeys: { resolve },
      fetch: () => Promise.reject(new Error("no calls here")),
      clock: systemClock,
    });
  const failure = (work: Promise<unknown>) =>
    work.then(
      () => {
        throw new Error("it resolved");
      },
      (error: unknown) => error as NodeError,
    );

  it("fails a node without retries when its credential is gone or cannot be opened, saying which", async () => {
    const gone = host(
      () => Promise.reject(new CredentialNotFound()),
      async () => undefined,
    );
    const error = await failure(gone.forWorkspace("ws_1").resolve("cred_1", ["bearer"]));
    expect(error).toBeInstanceOf(NodeError);
    expect([error.retryable, error.message]).toEqual([
      false,
      "The credential cred_1 this node uses no longer exists in the workspace (deleted?): choose another in the node's config",
    ]);

    const unreadable = host(
      () => Promise.reject(new CredentialUnreadable("SVC_ENCRYPTION_KEY is not set")),
      () => Promise.reject(new CredentialUnreadable("SVC_ENCRYPTION_KEY is not set")),
    );
    for (const work of [
      unreadable.forWorkspace("ws_1").resolve("cred_1", ["bearer"]),
      unreadable.aiKey("ws_1", "openai", "cred_1"),
      // The workspace's own key, named by no credential, fails the same way rather than being retried.
      unreadable.aiKey("ws_1", "openai"),
    ]) {
      const refused = await failure(work);
      expect([refused.retryable, refused.message]).toEqual([
        false,
        "The credential cannot be opened: SVC_ENCRYPTION_KEY is not set",
      ]);
    }
  });

  /** The Authorization a bearer credential with those allowed_hosts sets on a request to `url`. */
  const send = async (allowed: string[] | undefined, url: string) => {
    const opened = createNodeCredentials({
      credentials: {
        open: async () => ({
          id: "cred_1",
          type: "bearer",
          revision: "r1",
          data: { token: "tok-abcdef", ...(allowed ? { allowed_hosts: allowed } : {}) },
        }),
      },
      apiKeys: { resolve: async () => undefined },
      fetch: () => Promise.reject(new Error("no calls here")),
      clock: systemClock,
    });
    const credential = await opened.forWorkspace("ws_1").resolve("cred_1", ["bearer"]);
    const headers = new Headers();
    await credential.apply({ url: new URL(url), headers });
    return headers.get("authorization");
  };

  it("sends a credential only to its allowed hosts, and refuses the others before setting anything", async () => {
    expect(await send(undefined, "https://anywhere.test/x")).toBe("Bearer tok-abcdef");
    expect(await send([], "https://anywhere.test/x")).toBe("Bearer tok-abcdef");
    expect(await send(["api.shop.test"], "https://API.shop.test/orders")).toBe("Bearer tok-abcdef");
    expect(await send(["*.shop.test"], "https://eu.api.shop.test/orders")).toBe("Bearer tok-abcdef");
    expect(await send(["[::1]:8080"], "http://[::1]:8080/")).toBe("Bearer tok-abcdef");
    for (const [allowed, url] of [
      [["api.shop.test"], "https://evil.test/?to=api.shop.test"],
      [["api.shop.test"], "https://api.shop.test.evil.test/"],
      [["*.shop.test"], "https://shop.test/"],
      [["*.shop.test"], "https://evilshop.test/"],
    ] as const) {
      const refused = await failure(send([...allowed], url));
      expect([refused.retryable, refused.message]).toEqual([
        false,
        `The credential cred_1 may only be sent to ${allowed.join(", ")}, not to ${new URL(url).hostname}`,
      ]);
    }
  });

  it("matches allowed hosts on their port too: none given allows only the scheme's default one", async () => {
    const refusal = async (allowed: string[], url: string) => (await failure(send(allowed, url))).message;

    expect(await refusal(["127.0.0.1"], "http://127.0.0.1:47201/")).toBe(
      `The credential cred_1 may only be sent to 127.0.0.1, not to 127.0.0.1:47201 (an allowed host without a port allows only the scheme's default port: add "127.0.0.1:47201" or "127.0.0.1:*" to allowed_hosts)`,
    );
    expect(await send(["127.0.0.1"], "http://127.0.0.1/")).toBe("Bearer tok-abcdef");
    expect(await send(["127.0.0.1:47201"], "http://127.0.0.1:47201/x")).toBe("Bearer tok-abcdef");
    expect(await refusal(["127.0.0.1:47201"], "http://127.0.0.1:47202/")).toMatch(/not to 127\.0\.0\.1:47202 \(/);
    expect(await send(["127.0.0.1:*"], "http://127.0.0.1:47202/")).toBe("Bearer tok-abcdef");
    expect(await send(["127.0.0.1:*"], "https://127.0.0.1/")).toBe("Bearer tok-abcdef");
    // A port given is the port used, the scheme's default included.
    expect(await send(["api.shop.test:443"], "https://api.shop.test/")).toBe("Bearer tok-abcdef");
    expect(await send(["api.shop.test"], "https://api.shop.test:443/")).toBe("Bearer tok-abcdef");
    expect(await refusal(["api.shop.test"], "http://api.shop.test:443/")).toMatch(/not to api\.shop\.test:443 \(/);
    expect(await refusal(["api.shop.test:443"], "http://api.shop.test/")).toMatch(/not to api\.shop\.test \(/);
    expect(await send(["*.shop.test:8443"], "https://eu.shop.test:8443/")).toBe("Bearer tok-abcdef");
    expect(await refusal(["*.shop.test:8443"], "https://eu.shop.test/")).toMatch(/not to eu\.shop\.test \(/);
    // IPv6: bare without a port, in brackets with one; any spelling of the address.
    expect(await send(["::1"], "http://[0:0::1]/")).toBe("Bearer tok-abcdef");
    expect(await refusal(["::1"], "http://[::1]:8080/")).toMatch(/not to \[::1\]:8080 \(/);
    expect(await send(["[::1]:*"], "http://[::1]:8080/")).toBe("Bearer tok-abcdef");
    // Another host on the same port gets no hint: it is not named at all.
    expect(await refusal(["127.0.0.1:*"], "http://127.0.0.2:80/")).toBe(
      "The credential cred_1 may only be sent to 127.0.0.1:*, not to 127.0.0.2",
    );
  });

  it("gives AI nodes that name no credential the workspace's or the server's key", async () => {
    const keys = host(
      () => Promise.reject(new Error("not opened")),
      async () => "sk-server",
    );
    expect(await keys.aiKey("ws_1", "anthropic")).toBe("sk-server");
  });
});
