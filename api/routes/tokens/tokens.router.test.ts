// Workspace API tokens through the app: created by admins in a session (shown once), listed
// without a secret, revoked at once; a bearer request judged by its token alone (no cookie, no
// CSRF), within its scopes and its rate limit; and the token itself nowhere: not in any log line,
// answer (but the one that created it), error or table.
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import type { Express } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { closeDeps, createDeps, type AppDeps } from "../../deps.js";
import { createLogger } from "../../../lib/logger.js";
import { testConfig, testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { startTestWorker, testRegistry } from "../../../test/helpers/runs.js";
import { API_TOKEN_PATTERN, isWellFormedApiToken } from "../../../core/tokens/token-secret.js";
import { TOKEN_SCOPES } from "../../../core/tokens/token-scopes.js";

/** Every line the app logs, at debug level. */
class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.lines.push(chunk.toString("utf8"));
    done();
  }
  get text() {
    return this.lines.join("");
  }
}

/** Every row of every table, as text. */
async function databaseText(): Promise<string> {
  const prisma = testPrisma();
  const tables = await prisma.$queryRaw<Array<{ name: string }>>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  const dumps: string[] = [];
  for (const { name } of tables) {
    const rows = await prisma.$queryRawUnsafe<Array<{ row: string }>>(`SELECT t::text AS row FROM "${name}" t`);
    dumps.push(rows.map((r) => r.row).join("\n"));
  }
  return dumps.join("\n");
}

const echoFlow = {
  nodes: [
    { id: "start", type: "manual" },
    { id: "out", type: "test_echo", config: { value: "{{ input.n }}" } },
  ],
  edges: [{ from: "start", to: "out" }],
};

describe("workspace API tokens", () => {
  const logs = new LogCapture();
  /** Every answer's text but the one that created each token. */
  const answers: string[] = [];
  let deps: AppDeps;
  let app: Express;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let ownerCookie: string;
  let flowId: string;

  beforeAll(async () => {
    const taskQueue = `tokens-${randomUUID()}`;
    worker = await startTestWorker({ taskQueue });
    const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: "debug", API_TOKEN_RATE_LIMIT: "40" });
    deps = createDeps(config, createLogger(config, "tokens-test", logs), { nodes: testRegistry() });
    app = createApp(deps);
    owner = await createTestUser("token-owner");
    ownerCookie = (await login(app, owner.email)).cookie;
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", ownerCookie)
      .send({ name: "Echo", definition: echoFlow });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    flowId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    if (deps) await closeDeps(deps);
  });

  /** A request with the token as its bearer; its answer is kept for the search. */
  const as = (token: string) => {
    const keep = (req: request.Test) =>
      req.set("Authorization", `Bearer ${token}`).then((res) => {
        answers.push(JSON.stringify({ headers: res.headers, body: res.body, text: res.text }));
        return res;
      });
    return {
      get: (path: string) => keep(request(app).get(path)),
      post: (path: string, body: object = {}, headers: Record<string, string> = {}) =>
        keep(request(app).post(path).set(headers).send(body)),
      delete: (path: string) => keep(request(app).delete(path)),
      put: (path: string, body: object) => keep(request(app).put(path).send(body)),
    };
  };

  async function createToken(body: object, cookie = ownerCookie) {
    const res = await request(app).post("/api/workspace/tokens").set("Cookie", cookie).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; token: string; hint: string; scopes: string[] };
  }

  it("is created by an admin and shown once, with a recognisable prefix and checksum; the list never shows it", async () => {
    const created = await createToken({ name: "CI", scopes: ["read", "run"] });
    expect(created.token).toMatch(API_TOKEN_PATTERN);
    expect(created.token.startsWith("svc_pat_")).toBe(true);
    expect(isWellFormedApiToken(created.token)).toBe(true);
    // One character changed breaks the checksum.
    const last = created.token.at(-1)!;
    expect(isWellFormedApiToken(created.token.slice(0, -1) + (last === "a" ? "b" : "a"))).toBe(false);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^tok_[0-9a-f]{24}$/),
      name: "CI",
      scopes: ["read", "run"],
      status: "active",
      created_by: owner.user.id,
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    });
    expect(created.token.startsWith(created.hint.replace("…", ""))).toBe(true);

    const list = await request(app).get("/api/workspace/tokens").set("Cookie", ownerCookie);
    expect(list.status).toBe(200);
    answers.push(JSON.stringify(list.body));
    const listed = list.body.items.find((t: { id: string }) => t.id === created.id);
    expect(listed).toMatchObject({ name: "CI", hint: created.hint });
    expect(listed).not.toHaveProperty("token");
    expect(JSON.stringify(list.body)).not.toContain(created.token);
  });

  it("is managed by admins and owners in a session only: editors, viewers and tokens are refused", async () => {
    const editor = await createTestUser("token-editor");
    await testPrisma().membership.create({
      data: { userId: editor.user.id, workspaceId: owner.workspace.workspaceId, role: "editor" },
    });
    const editorCookie = (await login(app, editor.email, undefined, { workspaceId: owner.workspace.workspaceId }))
      .cookie;
    const refused = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", editorCookie)
      .send({ name: "mine", scopes: ["admin"] });
    expect(refused.status).toBe(403);
    expect((await request(app).get("/api/workspace/tokens").set("Cookie", editorCookie)).status).toBe(403);

    const admin = await createToken({ name: "Admin", scopes: [...TOKEN_SCOPES] });
    const minted = await as(admin.token).post("/api/workspace/tokens", { name: "more", scopes: ["read"] });
    expect(minted.status).toBe(403);
    expect(minted.body.code).toBe("session_required");
    // People's own business: their account, their workspaces, members, approvals.
    for (const [method, path, body] of [
      ["get", "/api/workspaces"],
      ["put", "/api/auth/password", { current_password: "x", new_password: "correct horse battery" }],
      ["post", "/api/workspace/members", { email: `${randomUUID()}@example.com`, role: "admin" }],
      ["get", "/api/waits"],
      ["get", "/api/workspace/tokens"],
    ] as const) {
      const res =
        method === "get"
          ? await as(admin.token).get(path)
          : method === "put"
            ? await as(admin.token).put(path, body!)
            : await as(admin.token).post(path, body!);
      expect([path, res.status, res.body.code]).toEqual([path, 403, "session_required"]);
    }
    // No bearer session exists: the session endpoint answers as to no one.
    expect((await as(admin.token).get("/api/auth/session")).status).toBe(401);
  });

  it("reads with read, is refused a start without run, starts a run with run that is attributed to it", async () => {
    const reader = await createToken({ name: "Reader", scopes: ["read"] });
    expect((await as(reader.token).get("/api/flows")).body.items.map((f: { id: string }) => f.id)).toContain(flowId);
    const refused = await as(reader.token).post(`/api/workflows/${flowId}/run`, { input: { n: 1 } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "insufficient_scope", required_scope: "run", token_scopes: ["read"] });
    expect((await as(reader.token).put(`/api/flows/${flowId}`, { name: "Renamed" })).body.code).toBe(
      "insufficient_scope",
    );

    const runner = await createToken({ name: "Runner", scopes: ["read", "run"] });
    const started = await as(runner.token).post(`/api/workflows/${flowId}/run`, { input: { n: 2 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run_id as string;
    const deadline = Date.now() + 30_000;
    let run: { status: string; output: unknown };
    do {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await as(runner.token).get(`/api/runs/${runId}`)).body.run;
    } while (run.status === "running");
    expect(run).toMatchObject({ status: "success", output: { input: { n: 2 }, value: 2 } });
    const row = await testPrisma().run.findUniqueOrThrow({ where: { id: runId } });
    expect([row.trigger, row.createdBy]).toEqual(["api", runner.id]);

    // The access log names the token's id for its requests.
    const accessLines = logs.lines.filter((line) => line.includes(`"token_id":"${runner.id}"`));
    expect(accessLines.some((line) => line.includes(`/api/workflows/${flowId}/run`))).toBe(true);

    const used = await request(app).get("/api/workspace/tokens").set("Cookie", ownerCookie);
    const listed = used.body.items.find((t: { id: string }) => t.id === runner.id);
    expect(listed.last_used_at).not.toBeNull();
    expect(listed.last_used_from).toMatch(/127\.0\.0\.1|::1/);
  });

  it("is judged alone: a forged or valid cookie beside it changes nothing, and no CSRF header is needed", async () => {
    const reader = await createToken({ name: "Reader+cookie", scopes: ["read"] });
    // The owner's valid cookie (who may start runs) beside a read token: judged by the token.
    const withCookie = await as(reader.token).post(
      `/api/workflows/${flowId}/run`,
      {},
      { Cookie: ownerCookie, Origin: "https://evil.example" },
    );
    expect(withCookie.status).toBe(403);
    expect(withCookie.body.code).toBe("insufficient_scope");
    // A forged cookie beside a valid run token: the token decides, and a foreign Origin is no CSRF.
    const runner = await createToken({ name: "Runner+forged", scopes: ["run"] });
    const forged = await as(runner.token).post(
      `/api/workflows/${flowId}/run`,
      {},
      { Cookie: `svc_session=${"A".repeat(43)}`, Origin: "https://evil.example" },
    );
    expect(forged.status, JSON.stringify(forged.body)).toBe(201);
    // A bad token beside the owner's valid cookie: 401, never the cookie's session.
    const bad = await request(app)
      .get("/api/flows")
      .set("Authorization", "Bearer svc_pat_000000000000000000000000000000000000000000000000")
      .set("Cookie", ownerCookie);
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe("invalid_token");
    expect(bad.headers["www-authenticate"]).toBe("Bearer");
    // Without a bearer, the same cross-site request with the cookie is still refused by the CSRF guard.
    const csrf = await request(app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", ownerCookie)
      .set("Origin", "https://evil.example")
      .send({});
    expect(csrf.body.code).toBe("csrf_refused");
  });

  it("answers 401 at once when revoked or expired, and only within its workspace", async () => {
    const token = await createToken({ name: "Short", scopes: ["read"] });
    expect((await as(token.token).get("/api/flows")).status).toBe(200);
    const revoked = await request(app).delete(`/api/workspace/tokens/${token.id}`).set("Cookie", ownerCookie);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: "revoked", revoked_at: expect.any(String) });
    const after = await as(token.token).get("/api/flows");
    expect([after.status, after.body.code, after.body.error]).toEqual([
      401,
      "invalid_token",
      "This API token has been revoked",
    ]);

    const expiring = await createToken({
      name: "Expiring",
      scopes: ["read"],
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await as(expiring.token).get("/api/flows")).status).toBe(200);
    // Its hour passes.
    await testPrisma().apiToken.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const expired = await as(expiring.token).get("/api/flows");
    expect([expired.status, expired.body.error]).toEqual([401, "This API token has expired"]);
    const listed = await request(app).get("/api/workspace/tokens").set("Cookie", ownerCookie);
    expect(listed.body.items.find((t: { id: string }) => t.id === expiring.id).status).toBe("expired");

    // Past expiries and unknown scopes are refused at creation.
    for (const body of [
      { name: "past", scopes: ["read"], expires_at: new Date(Date.now() - 1000).toISOString() },
      { name: "bad", scopes: ["root"] },
      { name: "none", scopes: [] },
    ]) {
      const res = await request(app).post("/api/workspace/tokens").set("Cookie", ownerCookie).send(body);
      expect(res.status).toBe(400);
    }

    // Another workspace's token sees nothing of this one.
    const other = await createTestUser("token-other");
    const otherCookie = (await login(app, other.email)).cookie;
    const foreign = await createToken({ name: "Foreign", scopes: ["read", "run", "write"] }, otherCookie);
    expect((await as(foreign.token).get(`/api/flows/${flowId}`)).status).toBe(404);
    expect((await as(foreign.token).post(`/api/workflows/${flowId}/run`)).status).toBe(404);
    expect((await request(app).delete(`/api/workspace/tokens/${token.id}`).set("Cookie", otherCookie)).status).toBe(
      404,
    );
  });

  it("stands only while its creator manages the workspace: demoted or removed, the creator's tokens answer 401", async () => {
    // A hole a token would otherwise open: an admin mints a token, is demoted or removed, and
    // keeps the workspace through it.
    const admin = await createTestUser("token-admin");
    const adminCookie = (await joinWorkspace(app, ownerCookie, admin, "admin")).cookie;
    const minted = await createToken({ name: "Admin's", scopes: ["read", "run", "write", "admin"] }, adminCookie);
    expect((await as(minted.token).get("/api/flows")).status).toBe(200);
    const setRole = (role: string) =>
      request(app).put(`/api/workspace/members/${admin.user.id}`).set("Cookie", ownerCookie).send({ role });
    const statusListed = async () =>
      (await request(app).get("/api/workspace/tokens").set("Cookie", ownerCookie)).body.items.find(
        (t: { id: string }) => t.id === minted.id,
      ).status;

    expect((await setRole("editor")).status).toBe(200);
    const demoted = await as(minted.token).get("/api/flows");
    expect([demoted.status, demoted.body.code, demoted.body.error]).toEqual([
      401,
      "invalid_token",
      "This API token's creator no longer manages this workspace's tokens: an admin creates a new one",
    ]);
    expect(await statusListed()).toBe("creator_left");

    // Made admin again, their token stands again; removed, it stops for good.
    expect((await setRole("admin")).status).toBe(200);
    expect((await as(minted.token).get("/api/flows")).status).toBe(200);
    expect(await statusListed()).toBe("active");
    const removed = await request(app).delete(`/api/workspace/members/${admin.user.id}`).set("Cookie", ownerCookie);
    expect(removed.status).toBeLessThan(300);
    expect((await as(minted.token).get("/api/flows")).status).toBe(401);
    expect((await as(minted.token).post(`/api/workflows/${flowId}/run`)).status).toBe(401);
    expect(await statusListed()).toBe("creator_left");
  });

  it("is rate limited per token", async () => {
    const busy = await createToken({ name: "Busy", scopes: ["read"] });
    const calm = await createToken({ name: "Calm", scopes: ["read"] });
    const statuses: number[] = [];
    // API_TOKEN_RATE_LIMIT is 40 a minute in this file (a window boundary may reset it once).
    for (let i = 0; i < 90 && !statuses.includes(429); i++)
      statuses.push((await as(busy.token).get("/api/nodes")).status);
    expect(statuses).toContain(429);
    const limited = await as(busy.token).get("/api/nodes");
    if (limited.status === 429) {
      expect(limited.body.code).toBe("rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    }
    // Another token of the workspace counts on its own.
    expect((await as(calm.token).get("/api/nodes")).status).toBe(200);
  });

  it("never leaves the token in a log line, an answer, an error or a table", async () => {
    const created = await createToken({ name: "Secret keeper", scopes: ["read", "run"] });
    const { token } = created;
    await as(token).get("/api/flows");
    await as(token).post(`/api/workflows/${flowId}/run`, { input: { x: 1 } });
    await as(token).post("/api/flows", { name: "nope", definition: echoFlow });
    await as(token).get("/api/workspaces");
    await as(token).get("/api/runs/run_000000000000000000000000");
    await request(app).delete(`/api/workspace/tokens/${created.id}`).set("Cookie", ownerCookie);
    await as(token).get("/api/flows");
    // A token sent where a session cookie goes, and one with a wrong checksum.
    await request(app).get("/api/flows").set("Cookie", `svc_session=${token}`);
    await as(`${token.slice(0, -2)}zz`).get("/api/flows");

    const random = token.slice("svc_pat_".length);
    const secretPart = random.slice(4); // the hint shows the first four characters
    expect(logs.lines.length).toBeGreaterThan(10);
    expect(logs.text).not.toContain(secretPart);
    expect(answers.join("\n")).not.toContain(secretPart);
    expect(await databaseText()).not.toContain(secretPart);
    // The table holds its hash, which is no token.
    const row = await testPrisma().apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
