import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { manualClock } from "../../../lib/clock.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, makeTestApps, sessionCookieOf, uniqueEmail } from "../../../test/helpers/identity.js";

const appFor = makeTestApps();

/** An owner and a viewer of one workspace, logged in. */
async function team(app: Express) {
  const owner = await createTestUser("inviter");
  const workspaceId = owner.workspace.workspaceId;
  const viewer = await createTestUser("viewer");
  await testPrisma().membership.create({ data: { userId: viewer.user.id, workspaceId, role: "viewer" } });
  return {
    owner,
    workspaceId,
    ownerCookie: (await login(app, owner.email)).cookie,
    viewerCookie: (await login(app, viewer.email, undefined, { workspaceId })).cookie,
  };
}

async function invite(app: Express, cookie: string, email: string, role = "editor") {
  const res = await request(app).post("/api/workspace/members").set("Cookie", cookie).send({ email, role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    invite: { id: string; email: string; created_at: string; expires_at: string };
    accept_url: string;
    delivery: string;
  };
}

const tokenOf = (acceptUrl: string) => acceptUrl.split("/").at(-1)!;

describe("invites", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("invites an e-mail no account has: a pending invite and a one-time link, whose hash alone is stored", async () => {
    const { ownerCookie, owner, workspaceId } = await team(app);
    const email = uniqueEmail("invitee");
    const created = await invite(app, ownerCookie, email);
    expect(created).toEqual({
      invite: {
        id: expect.stringMatching(/^inv_[0-9a-f]{24}$/),
        email,
        role: "editor",
        invited_by: { id: owner.user.id, name: "inviter name" },
        created_at: expect.any(String),
        expires_at: expect.any(String),
        status: "pending",
      },
      accept_url: expect.stringMatching(/^\/invite\/[A-Za-z0-9_-]{43}$/),
      delivery: "link",
    });
    const days = (Date.parse(created.invite.expires_at) - Date.parse(created.invite.created_at)) / 86_400_000;
    expect(days).toBe(7);
    const stored = await testPrisma().invite.findUniqueOrThrow({ where: { id: created.invite.id } });
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(tokenOf(created.accept_url));
    expect(await testPrisma().user.findUnique({ where: { email } })).toBeNull();

    const list = await request(app).get("/api/workspace/invites").set("Cookie", ownerCookie);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([created.invite]);
    const members = await request(app).get("/api/workspace/members").set("Cookie", ownerCookie);
    expect(members.body.items.map((m: { user: { email: string } }) => m.user.email)).not.toContain(email);
    expect(workspaceId).toBe(stored.workspaceId);
  });

  it("accepts once: creates the account and the membership, logs in, and burns the link", async () => {
    const { ownerCookie, workspaceId } = await team(app);
    const email = uniqueEmail("newcomer");
    const { accept_url } = await invite(app, ownerCookie, email, "editor");
    const token = tokenOf(accept_url);

    const preview = await request(app).get(`/api/invites/${token}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      email,
      role: "editor",
      workspace: { name: "inviter workspace" },
      invited_by: { name: "inviter name" },
      expires_at: expect.any(String),
    });

    const accepted = await request(app)
      .post(`/api/invites/${token}/accept`)
      .send({ name: "New Comer", password: "a-new-password" });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({
      authenticated: true,
      user: { email, name: "New Comer" },
      workspace: { workspaceId, name: "inviter workspace", role: "editor" },
    });
    const cookie = sessionCookieOf(accepted);
    const session = await request(app).get("/api/auth/session").set("Cookie", cookie);
    expect(session.body.workspace.role).toBe("editor");
    const members = await request(app).get("/api/workspace/members").set("Cookie", cookie);
    expect(
      members.body.items.map((m: { user: { email: string }; role: string }) => [m.user.email, m.role]),
    ).toContainEqual([email, "editor"]);
    // The new account logs in with the password it chose.
    expect((await login(app, email, "a-new-password")).body.workspace.workspaceId).toBe(workspaceId);
    // The invite leaves the list.
    expect((await request(app).get("/api/workspace/invites").set("Cookie", ownerCookie)).body.items).toEqual([]);

    const again = await request(app)
      .post(`/api/invites/${token}/accept`)
      .send({ name: "Twice", password: "another-pass" });
    expect([again.status, again.body.code]).toEqual([409, "invite_used"]);
    expect((await request(app).get(`/api/invites/${token}`)).status).toBe(409);
  });

  it("declines: the link stops working, and nobody joins", async () => {
    const { ownerCookie, workspaceId } = await team(app);
    const email = uniqueEmail("declines");
    const { accept_url, invite: created } = await invite(app, ownerCookie, email);
    const declined = await request(app).post(`/api/invites/${tokenOf(accept_url)}/decline`);
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(declined.body).toEqual({ ok: true });
    const accept = await request(app)
      .post(`/api/invites/${tokenOf(accept_url)}/accept`)
      .send({ name: "Late", password: "changed-my-mind" });
    expect([accept.status, accept.body.code]).toEqual([404, "invite_not_found"]);
    expect((await request(app).post(`/api/invites/${tokenOf(accept_url)}/decline`)).status).toBe(404);
    expect(await testPrisma().invite.findUnique({ where: { id: created.id } })).toBeNull();
    expect(await testPrisma().user.findUnique({ where: { email } })).toBeNull();
    expect(await testPrisma().membership.count({ where: { workspaceId } })).toBe(2);
  });

  it("lets only one of two concurrent accepts through", async () => {
    const { ownerCookie } = await team(app);
    const email = uniqueEmail("racer");
    const token = tokenOf((await invite(app, ownerCookie, email)).accept_url);
    const answers = await Promise.all(
      [1, 2].map((n) =>
        request(app)
          .post(`/api/invites/${token}/accept`)
          .send({ name: `R${n}`, password: "race-password" }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await testPrisma().user.count({ where: { email } })).toBe(1);
  });

  it("refuses an expired link with 410, and never joins through it", async () => {
    const clock = manualClock();
    const { app: clocked } = appFor({}, clock);
    const { ownerCookie, workspaceId } = await team(clocked);
    const email = uniqueEmail("late");
    const token = tokenOf((await invite(clocked, ownerCookie, email)).accept_url);
    clock.advance(7 * 86_400_000 + 1000);
    const preview = await request(clocked).get(`/api/invites/${token}`);
    expect(preview.status).toBe(410);
    expect(preview.body).toEqual({ error: "This invite has expired: ask for a new one", code: "invite_expired" });
    const accept = await request(clocked)
      .post(`/api/invites/${token}/accept`)
      .send({ name: "Late", password: "too-late-now" });
    expect([accept.status, accept.body.code]).toEqual([410, "invite_expired"]);
    expect(await testPrisma().user.findUnique({ where: { email } })).toBeNull();
    expect(await testPrisma().membership.count({ where: { workspaceId } })).toBe(2);
  });

  it("revokes an invite: its link stops working; viewers may neither invite nor revoke", async () => {
    const { ownerCookie, viewerCookie } = await team(app);
    const byViewer = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", viewerCookie)
      .send({ email: uniqueEmail("nope"), role: "viewer" });
    expect([byViewer.status, byViewer.body.code]).toEqual([403, "forbidden"]);

    const created = await invite(app, ownerCookie, uniqueEmail("revoked"));
    const viewerRevoke = await request(app)
      .delete(`/api/workspace/invites/${created.invite.id}`)
      .set("Cookie", viewerCookie);
    expect(viewerRevoke.status).toBe(403);
    expect((await request(app).get("/api/workspace/invites").set("Cookie", viewerCookie)).body.items).toHaveLength(1);

    const revoked = await request(app).delete(`/api/workspace/invites/${created.invite.id}`).set("Cookie", ownerCookie);
    expect(revoked.status).toBe(200);
    const accept = await request(app)
      .post(`/api/invites/${tokenOf(created.accept_url)}/accept`)
      .send({ name: "Gone", password: "revoked-link" });
    expect([accept.status, accept.body.code]).toEqual([404, "invite_not_found"]);
    const twice = await request(app).delete(`/api/workspace/invites/${created.invite.id}`).set("Cookie", ownerCookie);
    expect([twice.status, twice.body.code]).toEqual([404, "invite_not_found"]);
  });

  it("answers another workspace's invite as unknown, and only an owner invites an owner", async () => {
    const mine = await team(app);
    const theirs = await team(app);
    const created = await invite(app, theirs.ownerCookie, uniqueEmail("theirs"));
    const revoke = await request(app)
      .delete(`/api/workspace/invites/${created.invite.id}`)
      .set("Cookie", mine.ownerCookie);
    expect(revoke.status).toBe(404);
    expect((await request(app).get("/api/workspace/invites").set("Cookie", mine.ownerCookie)).body.items).toEqual([]);

    const admin = await createTestUser("admin");
    await testPrisma().membership.create({
      data: { userId: admin.user.id, workspaceId: mine.workspaceId, role: "admin" },
    });
    const adminCookie = (await login(app, admin.email, undefined, { workspaceId: mine.workspaceId })).cookie;
    const owner = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", adminCookie)
      .send({ email: uniqueEmail("boss"), role: "owner" });
    expect(owner.status).toBe(403);
  });

  it("answers bad tokens and bad bodies with 400 or 404, never 500", async () => {
    const { ownerCookie } = await team(app);
    for (const token of ["short", "x".repeat(43), "%E0%A4%A", "a".repeat(101)]) {
      const res = await request(app).get(`/api/invites/${token}`);
      expect([400, 404], `${token}: ${res.status}`).toContain(res.status);
      expect(res.body.code).toEqual(expect.any(String));
    }
    const token = tokenOf((await invite(app, ownerCookie, uniqueEmail("strict"))).accept_url);
    const short = await request(app).post(`/api/invites/${token}/accept`).send({ name: "S", password: "short" });
    expect([short.status, short.body.details[0].path]).toEqual([400, "password"]);
    const noBody = await request(app).post(`/api/invites/${token}/accept`);
    expect([noBody.status, noBody.body.details?.[0]?.path]).toEqual([400, "password"]);
    // Without a name, the password is an account's: an e-mail no account has answers like a wrong one.
    const noAccount = await request(app).post(`/api/invites/${token}/accept`).send({ password: "long-enough-pw" });
    expect([noAccount.status, noAccount.body.code]).toEqual([401, "invalid_credentials"]);
    // None of these burnt the link.
    expect((await request(app).get(`/api/invites/${token}`)).status).toBe(200);
  });

  it("joins an existing account only with its password", async () => {
    const { ownerCookie, workspaceId } = await team(app);
    const email = uniqueEmail("later");
    const token = tokenOf((await invite(app, ownerCookie, email, "viewer")).accept_url);
    // The account appears after the invite (made by an operator, say).
    const existing = await createTestUser("existing");
    await testPrisma().user.update({ where: { id: existing.user.id }, data: { email } });

    const wrong = await request(app).post(`/api/invites/${token}/accept`).send({ password: "not-the-password" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "invalid_credentials"]);
    // A name does not make it a new account: the e-mail's account needs its password all the same.
    const asNew = await request(app)
      .post(`/api/invites/${token}/accept`)
      .send({ name: "Impostor", password: "chosen-by-holder" });
    expect([asNew.status, asNew.body.code]).toEqual([401, "invalid_credentials"]);
    // Another account's session is not the invitee's.
    const stranger = await login(app, (await createTestUser("stranger")).email);
    const bySession = await request(app).post(`/api/invites/${token}/accept`).set("Cookie", stranger.cookie).send({});
    expect([bySession.status, bySession.body.details?.[0]?.path]).toEqual([400, "password"]);
    expect(await testPrisma().membership.count({ where: { userId: existing.user.id, workspaceId } })).toBe(0);

    const right = await request(app)
      .post(`/api/invites/${token}/accept`)
      .send({ name: "ignored", password: existing.password });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body.user).toEqual({ id: existing.user.id, email, name: "existing name" });
    expect(right.body.workspace).toMatchObject({ workspaceId, role: "viewer" });
  });

  it("invites an existing account like any e-mail: it joins when it accepts with its session; a member is refused (409)", async () => {
    const { ownerCookie, owner, workspaceId } = await team(app);
    const other = await createTestUser("known");
    const added = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", ownerCookie)
      .send({ email: other.email, role: "viewer" });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ invite: { email: other.email, role: "viewer" }, delivery: "link" });
    expect(await testPrisma().membership.count({ where: { userId: other.user.id, workspaceId } })).toBe(0);

    const { cookie } = await login(app, other.email);
    const accepted = await request(app)
      .post(`/api/invites/${tokenOf(added.body.accept_url)}/accept`)
      .set("Cookie", cookie);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.workspace).toMatchObject({ workspaceId, role: "viewer" });
    // The caller's own session moved to the workspace joined.
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).body.workspace.workspaceId).toBe(
      workspaceId,
    );
    const self = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", ownerCookie)
      .send({ email: owner.email, role: "viewer" });
    expect(self.status).toBe(409);
  });
});
