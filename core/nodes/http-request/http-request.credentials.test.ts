// http_request with stored credentials through real runs: a real worker and dev server, an API and
// an OAuth2 token endpoint on loopback that check what they receive and echo it back.
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { startLoopbackServer, type LoopbackServer } from "../../../test/helpers/loopback-server.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const secret = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;
const tokens = { bearer: secret("bearer"), password: secret("pw"), key: secret("key"), header: secret("hdr") };
const client = { id: "svc-client", secret: secret("client") };

let api: LoopbackServer;
const seen: Array<{ path: string; url: string; headers: IncomingHttpHeaders }> = [];
let tokenRequests = 0;
/** Access tokens the API accepts (a revoked one is removed). */
const liveTokens = new Set<string>();

beforeAll(async () => {
  api = await startLoopbackServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    const reply = (status: number, body: object) =>
      // Echoes what it received, headers included, as some APIs (and httpbin) do.
      res
        .writeHead(status, {
          "Content-Type": "application/json",
          "X-Echo-Authorization": req.headers.authorization ?? "",
        })
        .end(JSON.stringify({ ...body, echoed: { url: req.url, headers: req.headers } }));
    if (url.pathname === "/oauth/token") {
      tokenRequests++;
      const expected = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`;
      if (req.headers.authorization !== expected) return reply(401, { error: "invalid_client" });
      const token = `at-${tokenRequests}-${randomBytes(8).toString("hex")}`;
      liveTokens.add(token);
      return res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 }));
    }
    seen.push({ path: url.pathname, url: req.url!, headers: req.headers });
    const auth = req.headers.authorization ?? "";
    const ok: Record<string, boolean> = {
      "/bearer": auth === `Bearer ${tokens.bearer}`,
      "/basic": auth === `Basic ${Buffer.from(`ada:${tokens.password}`).toString("base64")}`,
      "/key-header": req.headers["x-api-key"] === tokens.key,
      "/key-query": url.searchParams.get("api_key") === tokens.key,
      "/headers": req.headers["x-tenant"] === "acme" && req.headers["x-secret"] === tokens.header,
      "/oauth": liveTokens.has(auth.replace(/^Bearer /, "")),
      "/broken": false,
    };
    if (url.pathname === "/broken") return reply(500, { error: "down" });
    return ok[url.pathname] ? reply(200, { ok: true }) : reply(401, { error: "unauthorized" });
  });
});
afterAll(() => api.close());
beforeEach(() => {
  seen.length = 0;
});

describe("http_request with stored credentials", () => {
  const h = useRunHarness({ config: { EGRESS_ALLOWLIST: "127.0.0.1" } });
  const create = async (name: string, type: string, data: object) => {
    const res = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", h.cookie)
      .send({ name: `${name} ${randomBytes(3).toString("hex")}`, type, data });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const callFlow = (nodes: Array<{ id: string; path: string; credential_id: string } & Record<string, unknown>>) =>
    flow(
      nodes.map(({ id, path, credential_id, ...rest }) => ({
        id,
        type: "http_request",
        config: { url: `${api.url}${path}`, credential_id },
        ...rest,
      })),
      nodes.map(({ id }) => ["start", id] as [string, string]),
    );

  it("applies each kind of credential at call time and keeps its value out of outputs and step logs", async () => {
    const ids = {
      bearer: await create("Bearer", "bearer", { token: tokens.bearer }),
      basic: await create("Basic", "basic", { username: "ada", password: tokens.password }),
      keyHeader: await create("Header key", "api_key", { name: "X-Api-Key", value: tokens.key }),
      keyQuery: await create("Query key", "api_key", { name: "api_key", value: tokens.key, in: "query" }),
      headers: await create("Headers", "headers", { headers: { "X-Tenant": "acme", "X-Secret": tokens.header } }),
    };
    const flowId = await h.createFlow(
      callFlow([
        { id: "bearer", path: "/bearer", credential_id: ids.bearer },
        { id: "basic", path: "/basic", credential_id: ids.basic },
        { id: "key_header", path: "/key-header", credential_id: ids.keyHeader },
        { id: "key_query", path: "/key-query", credential_id: ids.keyQuery },
        { id: "headers", path: "/headers", credential_id: ids.headers },
      ]),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(seen.map((s) => s.path).sort()).toEqual(["/basic", "/bearer", "/headers", "/key-header", "/key-query"]);
    const steps = await h.steps(run.id);
    expect(steps.map((s) => [s.node_id, s.status]).filter(([id]) => id !== "start")).toEqual(
      expect.arrayContaining([
        ["bearer", "success"],
        ["basic", "success"],
        ["key_header", "success"],
        ["key_query", "success"],
        ["headers", "success"],
      ]),
    );
    const bearer = steps.find((s) => s.node_id === "bearer")!.output as {
      headers: Record<string, string>;
      body: { ok: boolean; echoed: { headers: Record<string, string> } };
    };
    expect(bearer.body.ok).toBe(true);
    expect(bearer.headers["x-echo-authorization"]).toBe("Bearer [redacted]");
    expect(bearer.body.echoed.headers.authorization).toBe("Bearer [redacted]");
    const query = steps.find((s) => s.node_id === "key_query")!.output as { body: { echoed: { url: string } } };
    expect(query.body.echoed.url).toBe("/key-query?api_key=[redacted]");
    const everything = JSON.stringify([run, steps]);
    const basicEncoded = Buffer.from(`ada:${tokens.password}`).toString("base64");
    for (const value of [...Object.values(tokens), basicEncoded]) expect(everything).not.toContain(value);
  });

  it("sends a credential to an allowed host only on the port its entry names (none: the scheme's default)", async () => {
    const port = new URL(api.url).port;
    const allowedOn = async (allowed_hosts: string[]) =>
      create("Confined", "bearer", { token: tokens.bearer, allowed_hosts });
    const runWith = async (credentialId: string) =>
      h.runToEnd(await h.createFlow(callFlow([{ id: "call", path: "/bearer", credential_id: credentialId }])));

    const hostOnly = await runWith(await allowedOn(["127.0.0.1"]));
    expect(hostOnly.status).toBe("failed");
    expect(JSON.stringify(hostOnly.error)).toContain(
      `may only be sent to 127.0.0.1, not to 127.0.0.1:${port} (an allowed host without a port allows only the scheme's default port: add \\"127.0.0.1:${port}\\" or \\"127.0.0.1:*\\" to allowed_hosts)`,
    );
    expect(seen).toEqual([]);
    expect((await runWith(await allowedOn([`127.0.0.1:${Number(port) + 1}`]))).status).toBe("failed");
    expect(seen).toEqual([]);

    expect((await runWith(await allowedOn([`127.0.0.1:${port}`]))).status).toBe("success");
    expect((await runWith(await allowedOn(["127.0.0.1:*"]))).status).toBe("success");
    expect(seen.map((s) => s.headers.authorization)).toEqual([`Bearer ${tokens.bearer}`, `Bearer ${tokens.bearer}`]);
  });

  it("uses a rotated value at the next run", async () => {
    const id = await create("Rotating", "bearer", { token: secret("old") });
    const flowId = await h.createFlow(callFlow([{ id: "call", path: "/bearer", credential_id: id }]));
    const refused = await h.runToEnd(flowId);
    expect(refused.status).toBe("failed");
    const rotated = await request(h.app)
      .patch(`/api/credentials/${id}`)
      .set("Cookie", h.cookie)
      .send({ data: { token: tokens.bearer } });
    expect(rotated.status).toBe(200);
    expect((await h.runToEnd(flowId)).status).toBe("success");
    expect(seen.map((s) => s.headers.authorization)).toEqual([
      expect.stringMatching(/^Bearer old-/),
      `Bearer ${tokens.bearer}`,
    ]);
  });

  it("fetches an OAuth2 token once, reuses it, and after a 401 fetches a new one and tries once more", async () => {
    const id = await create("OAuth", "oauth2_client_credentials", {
      token_url: `${api.url}/oauth/token`,
      client_id: client.id,
      client_secret: client.secret,
    });
    const flowId = await h.createFlow(callFlow([{ id: "call", path: "/oauth", credential_id: id }]));
    const before = tokenRequests;
    expect((await h.runToEnd(flowId)).status).toBe("success");
    expect((await h.runToEnd(flowId)).status).toBe("success");
    expect(tokenRequests - before).toBe(1);
    const [first, second] = seen.map((s) => s.headers.authorization);
    expect(first).toMatch(/^Bearer at-/);
    expect(second).toBe(first);

    liveTokens.clear(); // the provider revokes every token
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(tokenRequests - before).toBe(2);
    expect(seen.slice(2).map((s) => s.headers.authorization)).toEqual([first, expect.not.stringMatching(first!)]);
    // One attempt of the node: the second call was within it.
    expect((await h.steps(run.id)).filter((s) => s.node_id === "call")).toHaveLength(1);
    const steps = JSON.stringify(await h.steps(run.id));
    for (const token of [first!.slice(7), client.secret]) expect(steps).not.toContain(token);
  });

  it("fails at once when the token endpoint refuses the client, saying so without the secret", async () => {
    const id = await create("Bad client", "oauth2_client_credentials", {
      token_url: `${api.url}/oauth/token`,
      client_id: client.id,
      client_secret: secret("wrong"),
    });
    const flowId = await h.createFlow(callFlow([{ id: "call", path: "/oauth", credential_id: id }]));
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toContain(
      `The token endpoint ${api.url}/oauth/token of credential ${id} answered 401 (invalid_client)`,
    );
    expect(await h.steps(run.id)).toContainEqual(
      expect.objectContaining({ node_id: "call", status: "failed", attempt: 1 }),
    );
    expect(seen).toEqual([]);
  });

  it("keeps the value out of errors when the API refuses (401) or fails (500)", async () => {
    const wrong = secret("wrong");
    const refusedId = await create("Wrong token", "bearer", { token: wrong });
    const brokenId = await create("Broken", "bearer", { token: tokens.bearer });
    const flowId = await h.createFlow(
      callFlow([
        { id: "refused", path: "/bearer", credential_id: refusedId },
        {
          id: "broken",
          path: "/broken",
          credential_id: brokenId,
          retry: { max_attempts: 2, initial_interval_ms: 100 },
        },
      ]),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    const steps = await h.steps(run.id);
    expect(steps.filter((s) => s.node_id === "refused").map((s) => s.status)).toEqual(["failed"]);
    expect(steps.filter((s) => s.node_id === "broken").map((s) => s.status)).toEqual(["failed", "failed"]);
    const errors = JSON.stringify([run.error, steps.map((s) => s.error)]);
    expect(errors).toMatch(/answered 401/);
    expect(errors).toMatch(/answered 500/);
    expect(errors).not.toContain(wrong);
    expect(errors).not.toContain(tokens.bearer);
  });

  it("refuses at save time a credential that is missing, another workspace's, of the wrong type, or a template", async () => {
    const aiKey = await create("AI", "ai_provider", { provider: "openai", api_key: secret("sk") });
    const stranger = await createTestUser("cred-other");
    const theirs = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", (await login(h.app, stranger.email)).cookie)
      .send({ name: "Theirs", type: "bearer", data: { token: secret("t") } });
    const cases: Array<[string, RegExp]> = [
      ["cred_000000000000000000000000", /no credential "cred_000000000000000000000000" in this workspace/],
      [theirs.body.id as string, /no credential "cred_[0-9a-f]+" in this workspace/],
      [
        aiKey,
        /is a ai_provider credential; this node takes bearer, basic, api_key, headers, oauth2_client_credentials/,
      ],
      ["{{ input.credential }}", /must be a credential id/],
    ];
    for (const [credentialId, message] of cases) {
      const res = await request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "Bad", definition: callFlow([{ id: "call", path: "/bearer", credential_id: credentialId }]) });
      expect(res.status, credentialId).toBe(400);
      expect(res.body.code).toBe("invalid_definition");
      expect(res.body.details).toEqual([
        { path: "definition.nodes[1].config.credential_id", message: expect.stringMatching(message) },
      ]);
    }
  });

  it("fails the node without retrying once its credential is deleted, saying so", async () => {
    const id = await create("Deleted", "bearer", { token: tokens.bearer });
    const flowId = await h.createFlow(callFlow([{ id: "call", path: "/bearer", credential_id: id }]));
    const inUse = await request(h.app).delete(`/api/credentials/${id}`).set("Cookie", h.cookie);
    expect([inUse.status, inUse.body.flows]).toEqual([409, [{ id: flowId, name: "Test flow" }]]);
    expect((await request(h.app).delete(`/api/credentials/${id}?force=true`).set("Cookie", h.cookie)).status).toBe(200);
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toContain(
      `The credential ${id} this node uses no longer exists in the workspace`,
    );
    expect((await h.steps(run.id)).filter((s) => s.node_id === "call")).toEqual([
      expect.objectContaining({ status: "failed", attempt: 1 }),
    ]);
    expect(seen).toEqual([]);
  });
});
