// The token cache against a real token endpoint on loopback, with a clock the test moves.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../../lib/clock.js";
import { createEgressGuard } from "../../lib/egress/guarded-fetch.js";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { NodeError } from "../nodes/node-error.js";
import type { OpenedCredential } from "./credentials.service.js";
import { clientBasicAuth, createOAuth2Tokens } from "./oauth2-tokens.js";

interface TokenRequest {
  authorization?: string;
  form: Record<string, string>;
}

let server: LoopbackServer;
const requests: TokenRequest[] = [];
let answer: { status: number; body: object } = { status: 200, body: {} };
const egress = createEgressGuard({ allowlist: "127.0.0.1", timeoutMs: 5000, maxResponseBytes: 65536, maxRedirects: 0 });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      requests.push({
        authorization: req.headers.authorization,
        form: Object.fromEntries(new URLSearchParams(body)),
      });
      const issued = answer.status === 200 ? { access_token: `at-${requests.length}`, ...answer.body } : answer.body;
      res.writeHead(answer.status, { "Content-Type": "application/json" }).end(JSON.stringify(issued));
    });
  });
});
afterAll(async () => {
  server.close();
  await egress.close();
});
beforeEach(() => {
  requests.length = 0;
  answer = { status: 200, body: { token_type: "Bearer", expires_in: 3600 } };
});

const credential = (data: Record<string, unknown> = {}, revision = "r1"): OpenedCredential => ({
  id: "cred_000000000000000000000abc",
  type: "oauth2_client_credentials",
  revision,
  data: {
    token_url: `${server.url}/oauth/token`,
    client_id: "svc client",
    client_secret: "s3cret&value",
    client_auth: "basic",
    ...data,
  },
});

describe("OAuth2 client-credentials tokens", () => {
  it("asks the endpoint with Basic client auth, then serves the token until shortly before it expires", async () => {
    const clock = manualClock(new Date("2026-01-01T00:00:00Z"));
    const tokens = createOAuth2Tokens({ fetch: egress.fetch, clock });
    const cred = credential({ scope: "read write", audience: "https://api.example.com" });

    expect(await tokens.token(cred)).toBe("at-1");
    expect(requests).toEqual([
      {
        authorization: `Basic ${clientBasicAuth("svc client", "s3cret&value")}`,
        form: { grant_type: "client_credentials", scope: "read write", audience: "https://api.example.com" },
      },
    ]);
    // Form-encoded before base64, as RFC 6749 (2.3.1) says.
    expect(Buffer.from(clientBasicAuth("svc client", "s3cret&value"), "base64").toString()).toBe(
      "svc+client:s3cret%26value",
    );

    clock.advance(3600_000 - 61_000);
    expect(await tokens.token(cred)).toBe("at-1");
    expect(requests).toHaveLength(1);
    clock.advance(2_000); // within the last minute: replaced
    expect(await tokens.token(cred)).toBe("at-2");
    expect(requests).toHaveLength(2);
  });

  it("sends the client in the form when asked, and fetches once for calls made together", async () => {
    const tokens = createOAuth2Tokens({ fetch: egress.fetch, clock: manualClock() });
    const cred = credential({ client_auth: "body" });
    const all = await Promise.all([tokens.token(cred), tokens.token(cred), tokens.token(cred)]);
    expect(all).toEqual(["at-1", "at-1", "at-1"]);
    expect(requests).toEqual([
      {
        authorization: undefined,
        form: { grant_type: "client_credentials", client_id: "svc client", client_secret: "s3cret&value" },
      },
    ]);
  });

  it("forgets a token after a 401 (once, not one another call already replaced), and a rotated credential's", async () => {
    const tokens = createOAuth2Tokens({ fetch: egress.fetch, clock: manualClock() });
    const cred = credential();
    expect(await tokens.token(cred)).toBe("at-1");
    tokens.forget(cred, "at-1");
    expect(await tokens.token(cred)).toBe("at-2");
    tokens.forget(cred, "at-1");
    expect(await tokens.token(cred)).toBe("at-2");
    expect(await tokens.token(credential({}, "r2"))).toBe("at-3");
    expect(requests).toHaveLength(3);
  });

  it("takes a token without expires_in for five minutes", async () => {
    answer = { status: 200, body: {} };
    const clock = manualClock();
    const tokens = createOAuth2Tokens({ fetch: egress.fetch, clock });
    expect(await tokens.token(credential())).toBe("at-1");
    clock.advance(4 * 60_000);
    expect(await tokens.token(credential())).toBe("at-1");
    clock.advance(31_000);
    expect(await tokens.token(credential())).toBe("at-2");
  });

  it("fails without retrying on a refusal, naming the OAuth2 error but nothing else of the answer", async () => {
    answer = {
      status: 401,
      body: { error: "invalid_client", error_description: "Client authentication failed", echo: "s3cret&value" },
    };
    const tokens = createOAuth2Tokens({ fetch: egress.fetch, clock: manualClock() });
    const failure = (): Promise<NodeError> =>
      tokens.token(credential()).then(
        () => {
          throw new Error("a token came back");
        },
        (e: unknown) => e as NodeError,
      );
    const error = await failure();
    expect(error).toBeInstanceOf(NodeError);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `The token endpoint ${server.url}/oauth/token of credential cred_000000000000000000000abc answered 401 (invalid_client: Client authentication failed)`,
    );

    answer = { status: 503, body: {} };
    const busy = await failure();
    expect(busy.retryable).toBe(true);

    answer = { status: 200, body: { token_type: "mac" } };
    const mac = await failure();
    expect([mac.retryable, mac.message]).toEqual([false, expect.stringContaining('issued a "mac" token')]);
  });
});
