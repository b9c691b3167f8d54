// Each sensitive action writes one audit row through the API, in the workspace acted in, with its
// actor (a person or an API token), its object, the names of what changed and never a value.
import type { Express } from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import {
  createTestUser,
  linkToken,
  login,
  makeTestApps,
  sessionCookieOf,
  TEST_PASSWORD,
  uniqueEmail,
} from "../../test/helpers/identity.js";

const appFor = makeTestApps();

const definition = (message: string) => ({
  nodes: [
    { id: "start", type: "manual", position: { x: 0, y: 0 } },
    { id: "say", type: "log", config: { message } },
  ],
  edges: [{ from: "start", to: "say" }],
});

describe("audit log of sensitive actions", () => {
  let app: Express;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let cookie: string;

  beforeAll(async () => {
    app = appFor().app;
    owner = await createTestUser("audit-actions");
    cookie = (await login(app, owner.email)).cookie;
  });

  const rows = (filter: { action?: string; objectId?: string } = {}) =>
    testPrisma().auditEvent.findMany({
      where: { workspaceId: owner.workspace.workspaceId, ...filter },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });

  it("records a flow's creation, saves (version and changed field names), activation, hook regeneration and deletion", async () => {
    const secretMessage = "flow-message-never-in-audit";
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("User-Agent", "audit-flows")
      .send({ name: "Audited", status: "inactive", definition: definition(secretMessage) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const saved = await request(app)
      .put(`/api/flows/${id}`)
      .set("Cookie", cookie)
      .send({ version: 1, definition: definition(`${secretMessage}-2`), description: "changed" });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.version).toBe(2);
    // An update that changes nothing writes nothing; a stale one is refused and writes nothing.
    expect((await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 2 })).status).toBe(200);
    expect(
      (await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 1, name: "x" })).status,
    ).toBe(409);
    const on = await request(app).put(`/api/flows/${id}`).set("Cookie", cookie).send({ version: 2, status: "active" });
    expect(on.status).toBe(200);
    const off = await request(app)
      .put(`/api/flows/${id}`)
      .set("Cookie", cookie)
      .send({ version: 2, status: "inactive" });
    expect(off.status).toBe(200);
    const before = await testPrisma().flow.findUniqueOrThrow({ where: { id } });
    const hook = await request(app).post(`/api/flows/${id}/hook/regenerate`).set("Cookie", cookie);
    expect(hook.status).toBe(200);
    const after = await testPrisma().flow.findUniqueOrThrow({ where: { id } });
    expect(after.hookToken).not.toBe(before.hookToken);
    const removed = await request(app).delete(`/api/flows/${id}`).set("Cookie", cookie);
    expect(removed.status).toBe(200);

    const written = await rows({ objectId: id });
    expect(written.map((row) => [row.action, row.details])).toEqual([
      ["flow.created", { name: "Audited", status: "inactive", version: 1 }],
      ["flow.updated", { name: "Audited", version: 2, changed: ["definition", "description"] }],
      ["flow.activated", { name: "Audited", version: 2, status: "active" }],
      ["flow.deactivated", { name: "Audited", version: 2, status: "inactive" }],
      ["flow.hook_regenerated", { name: "Audited" }],
      ["flow.deleted", { name: "Audited", version: 2, cancelled_runs: 0 }],
    ]);
    for (const row of written)
      expect(row).toMatchObject({ actorKind: "person", actorId: owner.user.id, objectKind: "flow" });
    expect(written[0]!.userAgent).toBe("audit-flows");
    const text = JSON.stringify(written);
    expect(text).not.toContain(secretMessage);
    for (const token of [before.hookToken, after.hookToken]) expect(text).not.toContain(token!);
  });

  it("records a flow saved by an API token as the token", async () => {
    const made = await request(app)
      .post("/api/workspace/tokens")
      .set("Cookie", cookie)
      .send({ name: "Deployer", scopes: ["write"] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const created = await request(app)
      .post("/api/flows")
      .set("Authorization", `Bearer ${made.body.token}`)
      .send({ name: "By token", definition: definition("x") });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const written = await rows({ objectId: created.body.id });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      action: "flow.created",
      actorKind: "token",
      actorId: made.body.id,
      actorLabel: "Deployer",
    });
    expect(JSON.stringify(written)).not.toContain(made.body.token);
  });

  it("records invites created, revoked and accepted, role changes, the owner role offered and taken, resets issued and used, and removals", async () => {
    const workspaceId = owner.workspace.workspaceId;
    // An invite revoked.
    const revokedEmail = uniqueEmail("audit-revoked");
    const invited = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", cookie)
      .send({ email: revokedEmail, role: "viewer" });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const revokedId = invited.body.invite.id as string;
    expect((await request(app).delete(`/api/workspace/invites/${revokedId}`).set("Cookie", cookie)).status).toBe(200);
    expect((await request(app).delete(`/api/workspace/invites/${revokedId}`).set("Cookie", cookie)).status).toBe(404);

    // An invite accepted by a new account, whose role is then changed, offered the owner role, and who takes it.
    const memberEmail = uniqueEmail("audit-member");
    const invite = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", cookie)
      .send({ email: memberEmail, role: "viewer" });
    expect(invite.status).toBe(201);
    const inviteToken = linkToken(invite.body.accept_url as string);
    const accepted = await request(app)
      .post(`/api/invites/${inviteToken}/accept`)
      .set("User-Agent", "audit-accept")
      .send({ name: "Member", password: TEST_PASSWORD });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const member = {
      email: memberEmail,
      user: await testPrisma().user.findUniqueOrThrow({ where: { email: memberEmail } }),
    };
    const memberCookie = sessionCookieOf(accepted);
    const raised = await request(app)
      .put(`/api/workspace/members/${member.user.id}`)
      .set("Cookie", cookie)
      .send({ role: "editor" });
    expect(raised.status).toBe(200);
    const offered = await request(app)
      .put(`/api/workspace/members/${member.user.id}`)
      .set("Cookie", cookie)
      .send({ role: "owner" });
    expect(offered.status, JSON.stringify(offered.body)).toBe(202);
    const offerToken = linkToken(offered.body.offer.accept_url as string);
    const taken = await request(app).post(`/api/invites/${offerToken}/accept`).set("Cookie", memberCookie).send({});
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    const lowered = await request(app)
      .put(`/api/workspace/members/${member.user.id}`)
      .set("Cookie", cookie)
      .send({ role: "admin" });
    expect(lowered.status).toBe(200);

    // A reset link issued for the member and used by them.
    const reset = await request(app)
      .post(`/api/workspace/members/${member.user.id}/password-reset`)
      .set("Cookie", cookie);
    expect(reset.status, JSON.stringify(reset.body)).toBe(201);
    const resetToken = linkToken(reset.body.reset_url as string);
    const newPassword = "a-new-password-never-in-audit";
    const used = await request(app).post(`/api/auth/password-resets/${resetToken}`).send({ password: newPassword });
    expect(used.status, JSON.stringify(used.body)).toBe(200);

    // The member removed.
    expect((await request(app).delete(`/api/workspace/members/${member.user.id}`).set("Cookie", cookie)).status).toBe(
      200,
    );

    const written = (await rows()).filter((row) => /^(member|invite)\./.test(row.action));
    const ownerActs = { actorKind: "person", actorId: owner.user.id };
    const memberActs = { actorKind: "person", actorId: member.user.id, actorLabel: member.email };
    const byMember = { objectKind: "member", objectId: member.user.id };
    const inviteId = invite.body.invite.id as string;
    expect(written).toHaveLength(9);
    expect(written[0]).toMatchObject({
      ...ownerActs,
      action: "invite.created",
      objectKind: "invite",
      objectId: revokedId,
      details: { email: revokedEmail, role: "viewer" },
    });
    expect(written[1]).toMatchObject({
      ...ownerActs,
      action: "invite.revoked",
      objectId: revokedId,
      details: { email: revokedEmail, role: "viewer" },
    });
    expect(written[2]).toMatchObject({ ...ownerActs, action: "invite.created", objectId: inviteId });
    expect(written[3]).toMatchObject({
      ...memberActs,
      ...byMember,
      action: "member.added",
      userAgent: "audit-accept",
      details: { role: "viewer", invite_id: inviteId, invited_by: owner.user.id },
    });
    expect(written[4]).toMatchObject({
      ...ownerActs,
      ...byMember,
      action: "member.role_changed",
      details: { from: "viewer", to: "editor" },
    });
    expect(written[5]).toMatchObject({ ...ownerActs, ...byMember, action: "member.ownership_offered" });
    expect(written[6]).toMatchObject({
      ...memberActs,
      ...byMember,
      action: "member.ownership_accepted",
      details: { role: "owner" },
    });
    expect(written[7]).toMatchObject({
      ...ownerActs,
      ...byMember,
      action: "member.role_changed",
      details: { from: "owner", to: "admin" },
    });
    expect(written[8]!.action).toBe("member.removed");
    const resets = await testPrisma().auditEvent.findMany({
      where: { action: { startsWith: "password_reset." }, objectId: member.user.id },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });
    // Issued in the issuer's workspace; used: in each of the member's workspaces (this one), by the member.
    expect(resets.map((row) => [row.action, row.workspaceId, row.actorId])).toEqual([
      ["password_reset.issued", workspaceId, owner.user.id],
      ["password_reset.used", workspaceId, member.user.id],
    ]);
    const removal = await rows({ action: "member.removed" });
    expect(removal).toHaveLength(1);
    expect(removal[0]).toMatchObject({ ...ownerActs, ...byMember, details: { role: "admin", left: false } });

    const text = JSON.stringify(await testPrisma().auditEvent.findMany());
    for (const secret of [inviteToken, offerToken, resetToken, newPassword, TEST_PASSWORD])
      expect(text).not.toContain(secret);
  });

  it("records a workspace's creation and the names of the settings changed, never their values", async () => {
    const made = await request(app).post("/api/workspaces").set("Cookie", cookie).send({ name: "Second" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const createdRows = await testPrisma().auditEvent.findMany({ where: { workspaceId: made.body.workspaceId } });
    expect(createdRows).toMatchObject([
      {
        action: "workspace.created",
        actorId: owner.user.id,
        objectId: made.body.workspaceId,
        details: { name: "Second" },
      },
    ]);

    const changed = await request(app)
      .put("/api/workspace/settings")
      .set("Cookie", cookie)
      .send({ run_tree_max_depth: 3, items_max_count: 17 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // The same values again change nothing and write nothing.
    expect(
      (await request(app).put("/api/workspace/settings").set("Cookie", cookie).send({ run_tree_max_depth: 3 })).status,
    ).toBe(200);
    const written = await rows({ action: "workspace.settings_changed" });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      actorKind: "person",
      actorId: owner.user.id,
      objectKind: "workspace",
      objectId: owner.workspace.workspaceId,
      details: { changed: ["run_tree_max_depth", "items_max_count"] },
    });
    expect(JSON.stringify(written[0]!.details)).not.toMatch(/17|\b3\b/);
  });

  it("records logins: a success and each failure in the account's workspaces, an unknown address in none and naming no one, never a password", async () => {
    const person = await createTestUser("audit-login");
    const wrong = "wrong-password-never-in-audit";
    const failed = await request(app)
      .post("/api/auth/login")
      .set("User-Agent", "audit-login-agent")
      .send({ email: person.email, password: wrong });
    expect(failed.status).toBe(401);
    const unknownEmail = uniqueEmail("audit-nobody");
    const unknown = await request(app).post("/api/auth/login").send({ email: unknownEmail, password: wrong });
    expect(unknown.status).toBe(401);
    const notMember = await request(app)
      .post("/api/auth/login")
      .send({ email: person.email, password: TEST_PASSWORD, workspaceId: owner.workspace.workspaceId });
    expect(notMember.status).toBe(403);
    await login(app, person.email);

    const theirs = await testPrisma().auditEvent.findMany({
      where: { action: { startsWith: "auth." }, actorId: person.user.id },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });
    expect(
      theirs.map((row) => [row.action, row.workspaceId, (row.details as { reason?: string } | null)?.reason]),
    ).toEqual([
      ["auth.login_failed", person.workspace.workspaceId, "invalid_password"],
      ["auth.login_failed", person.workspace.workspaceId, "not_member"],
      ["auth.login_succeeded", person.workspace.workspaceId, undefined],
    ]);
    expect(theirs[0]).toMatchObject({
      actorKind: "person",
      actorLabel: person.email,
      objectKind: "user",
      objectId: person.user.id,
      userAgent: "audit-login-agent",
    });
    expect(theirs[0]!.sourceIp).toBeTruthy();
    // The workspace the failed attempt named sees nothing of it.
    expect(await rows({ action: "auth.login_failed" })).toEqual([]);

    const nobody = await testPrisma().auditEvent.findMany({
      where: { action: "auth.login_failed", workspaceId: null, details: { equals: { reason: "unknown_account" } } },
    });
    expect(nobody.length).toBeGreaterThan(0);
    for (const row of nobody) expect(row).toMatchObject({ actorId: null, actorLabel: null, objectId: null });
    const text = JSON.stringify(await testPrisma().auditEvent.findMany());
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(unknownEmail);
    expect(text).not.toContain(TEST_PASSWORD);
  });

  it("records a password change once in each of the person's workspaces, a refused one not at all, never a password", async () => {
    const person = await createTestUser("audit-password");
    const personCookie = (await login(app, person.email)).cookie;
    const next = "changed-password-never-in-audit";
    const refused = await request(app)
      .put("/api/auth/password")
      .set("Cookie", personCookie)
      .send({ current_password: "not-the-password", new_password: next });
    expect(refused.status).toBe(403);
    const changed = await request(app)
      .put("/api/auth/password")
      .set("Cookie", personCookie)
      .set("User-Agent", "audit-password-agent")
      .send({ current_password: TEST_PASSWORD, new_password: next });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    const written = await testPrisma().auditEvent.findMany({
      where: { action: "auth.password_changed", actorId: person.user.id },
    });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      workspaceId: person.workspace.workspaceId,
      actorKind: "person",
      actorLabel: person.email,
      objectKind: "user",
      objectId: person.user.id,
      userAgent: "audit-password-agent",
    });
    const text = JSON.stringify(written);
    expect(text).not.toContain(next);
    expect(text).not.toContain(TEST_PASSWORD);
  });

  it("records credential.used once per credential a flow's new version starts to name, never per save or run", async () => {
    const credential = async (name: string, body: object) => {
      const res = await request(app)
        .post("/api/credentials")
        .set("Cookie", cookie)
        .send({ name, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const bearerSecret = "bearer-secret-never-in-audit";
    const bearer = await credential("Used bearer", { type: "bearer", data: { token: bearerSecret } });
    const aiKey = await credential("Used fallback key", {
      type: "ai_provider",
      data: { provider: "anthropic", api_key: "sk-ant-never-in-audit" },
    });
    const callNode = (id: string) => ({
      id,
      type: "http_request",
      config: { url: "https://example.com", credential_id: bearer },
    });
    const withBearer = {
      nodes: [{ id: "start", type: "manual", position: { x: 0, y: 0 } }, callNode("call")],
      edges: [{ from: "start", to: "call" }],
    };
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Uses credentials", status: "inactive", definition: withBearer });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = created.body.id as string;
    // Version 2 names the bearer again (a second node) and, newly, the fallback's key.
    const prompt = {
      id: "ask",
      type: "ai.prompt",
      config: {
        provider: "openai",
        model: "gpt-4o-mini",
        prompt: "hi",
        fallbacks: [{ provider: "anthropic", model: "claude-3-5-haiku", credential_id: aiKey }],
      },
    };
    const saved = await request(app)
      .put(`/api/flows/${flowId}`)
      .set("Cookie", cookie)
      .send({
        version: 1,
        definition: {
          nodes: [...withBearer.nodes, callNode("again"), prompt],
          edges: [...withBearer.edges, { from: "call", to: "again" }, { from: "again", to: "ask" }],
        },
      });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // A change of name names no new credential.
    expect(
      (await request(app).put(`/api/flows/${flowId}`).set("Cookie", cookie).send({ version: 2, name: "Renamed" }))
        .status,
    ).toBe(200);

    const uses = (credentialId: string) => rows({ action: "credential.used", objectId: credentialId });
    const bearerRows = await uses(bearer);
    expect(bearerRows.map((row) => [row.objectKind, row.actorId, row.details])).toEqual([
      ["credential", owner.user.id, { flow_id: flowId, flow_name: "Uses credentials", version: 1, nodes: ["call"] }],
    ]);
    expect((await uses(aiKey)).map((row) => row.details)).toEqual([
      { flow_id: flowId, flow_name: "Uses credentials", version: 2, nodes: ["ask"] },
    ]);
    // A copy of the flow is a new flow that uses both.
    const copy = await request(app).post(`/api/flows/${flowId}/duplicate`).set("Cookie", cookie);
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    const copied = await rows({ action: "credential.used" });
    expect(
      copied
        .filter((row) => (row.details as { flow_id: string }).flow_id === copy.body.id)
        .map((row) => row.objectId)
        .sort(),
    ).toEqual([bearer, aiKey].sort());
    const text = JSON.stringify(copied);
    expect(text).not.toContain(bearerSecret);
    expect(text).not.toContain("sk-ant-never-in-audit");
  });
});
