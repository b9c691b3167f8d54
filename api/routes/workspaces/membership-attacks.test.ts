// Membership attacks (issue 39), each through the API on the real database: pre-claiming an
// account by adding its e-mail with a password of one's own, making someone owner of one's
// workspace, telling from the answer whether an e-mail has an account, and the accounts made the
// old way, which must set a new password through a reset link.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { manualClock } from "../../../lib/clock.js";
import { testPrisma } from "../../../test/helpers/context.js";
import {
  createTestUser,
  linkToken,
  login,
  makeTestApps,
  sessionCookieOf,
  uniqueEmail,
} from "../../../test/helpers/identity.js";

const appFor = makeTestApps();

const addMember = (app: Express, cookie: string, body: object) =>
  request(app).post("/api/workspace/members").set("Cookie", cookie).send(body);

const workspacesOf = async (app: Express, cookie: string) =>
  ((await request(app).get("/api/workspaces").set("Cookie", cookie)).body.items as Array<{ workspaceId: string }>).map(
    (w) => w.workspaceId,
  );

describe("membership attacks", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("pre-claim: Eve cannot give an address a password of hers, and her account for it never reaches Acme", async () => {
    const eve = await createTestUser("eve");
    const eveCookie = (await login(app, eve.email)).cookie;
    const acmeAdmin = await createTestUser("acme");
    const acmeCookie = (await login(app, acmeAdmin.email)).cookie;
    const acmeId = acmeAdmin.workspace.workspaceId;
    const cfo = uniqueEmail("cfo");

    // The old way: an account with a password Eve chose. Refused, and no account made.
    const preclaim = await addMember(app, eveCookie, {
      email: cfo,
      role: "viewer",
      name: "CFO",
      password: "eve-knows-it",
    });
    expect([preclaim.status, preclaim.body.code]).toEqual([400, "validation_failed"]);
    expect(await testPrisma().user.findUnique({ where: { email: cfo } })).toBeNull();

    // Eve holds her own invite's link (no mail server): she can make the account through it...
    const invited = await addMember(app, eveCookie, { email: cfo, role: "viewer" });
    expect(invited.status).toBe(201);
    const made = await request(app)
      .post(`/api/invites/${linkToken(invited.body.accept_url)}/accept`)
      .send({ name: "CFO", password: "eve-knows-it" });
    expect(made.status).toBe(200);

    // ...but Acme adding the address only invites it: nobody joins Acme without Acme's link.
    const acmeAdds = await addMember(app, acmeCookie, { email: cfo, role: "admin" });
    expect(acmeAdds.status).toBe(201);
    expect(acmeAdds.body.invite).toMatchObject({ email: cfo, role: "admin" });
    const cfoAccount = await testPrisma().user.findUniqueOrThrow({ where: { email: cfo } });
    expect(
      await testPrisma().membership.findUnique({
        where: { userId_workspaceId: { userId: cfoAccount.id, workspaceId: acmeId } },
      }),
    ).toBeNull();

    const intoAcme = await request(app)
      .post("/api/auth/login")
      .send({ email: cfo, password: "eve-knows-it", workspaceId: acmeId });
    expect([intoAcme.status, intoAcme.body.code]).toEqual([403, "forbidden"]);
    const { cookie } = await login(app, cfo, "eve-knows-it");
    const switched = await request(app).put("/api/auth/session").set("Cookie", cookie).send({ workspaceId: acmeId });
    expect(switched.status).toBe(403);
    expect(await workspacesOf(app, cookie)).not.toContain(acmeId);
    const flows = await request(app).get("/api/flows").set("Cookie", cookie);
    expect(flows.status).toBe(200);
    expect(JSON.stringify(flows.body)).not.toContain(acmeId);
  });

  it("owner-grab: making Ada owner of Eve's workspace leaves Ada with nothing until she accepts; she declines", async () => {
    const eve = await createTestUser("eve");
    const eveCookie = (await login(app, eve.email)).cookie;
    const ada = await createTestUser("ada");
    const adaCookie = (await login(app, ada.email)).cookie;
    const evesWorkspace = eve.workspace.workspaceId;

    const grab = await addMember(app, eveCookie, { email: ada.email, role: "owner" });
    expect(grab.status).toBe(201);
    expect(grab.body.invite).toMatchObject({ email: ada.email, role: "owner" });
    expect(await workspacesOf(app, adaCookie)).toEqual([ada.workspace.workspaceId]);
    const members = await request(app).get("/api/workspace/members").set("Cookie", eveCookie);
    expect(members.body.items.map((m: { user: { id: string } }) => m.user.id)).toEqual([eve.user.id]);

    // Eve holds the link, but not Ada's password nor her session.
    const token = linkToken(grab.body.accept_url);
    for (const body of [{ password: "guess-one" }, { name: "Ada", password: "guess-two" }]) {
      const forced = await request(app).post(`/api/invites/${token}/accept`).send(body);
      expect([forced.status, forced.body.code]).toEqual([401, "invalid_credentials"]);
    }
    const evesSession = await request(app).post(`/api/invites/${token}/accept`).set("Cookie", eveCookie).send({});
    expect(evesSession.status).toBe(400);

    const declined = await request(app).post(`/api/invites/${token}/decline`).set("Cookie", adaCookie);
    expect(declined.status).toBe(200);
    const late = await request(app).post(`/api/invites/${token}/accept`).set("Cookie", adaCookie);
    expect([late.status, late.body.code]).toEqual([404, "invite_not_found"]);
    expect(await workspacesOf(app, adaCookie)).toEqual([ada.workspace.workspaceId]);
    expect(
      await testPrisma().membership.findUnique({
        where: { userId_workspaceId: { userId: ada.user.id, workspaceId: evesWorkspace } },
      }),
    ).toBeNull();
  });

  it("owner-grab ignored: the offer lapses after 7 days and Ada never joined", async () => {
    const clock = manualClock();
    const { app: clocked } = appFor({}, clock);
    const eve = await createTestUser("eve");
    const ada = await createTestUser("ada");
    const grab = await addMember(clocked, (await login(clocked, eve.email)).cookie, {
      email: ada.email,
      role: "owner",
    });
    expect(grab.status).toBe(201);
    clock.advance(7 * 86_400_000 + 1000);
    const adaCookie = (await login(clocked, ada.email)).cookie;
    const late = await request(clocked)
      .post(`/api/invites/${linkToken(grab.body.accept_url)}/accept`)
      .set("Cookie", adaCookie);
    expect([late.status, late.body.code]).toEqual([410, "invite_expired"]);
    expect(await testPrisma().membership.count({ where: { userId: ada.user.id } })).toBe(1);
  });

  it("answers adding an e-mail with an account exactly as one without (status, shape, length)", async () => {
    const admin = await createTestUser("admin");
    const cookie = (await login(app, admin.email)).cookie;
    const known = await createTestUser("known");
    // The same length as the known address: the answers' lengths can be compared too.
    const unknown = uniqueEmail("xxxxx");
    expect(unknown.length).toBe(known.email.length);

    const answers = [await addMember(app, cookie, { email: known.email, role: "editor" })];
    answers.push(await addMember(app, cookie, { email: unknown, role: "editor" }));
    const masked = answers.map((res) => ({
      status: res.status,
      length: res.text.length,
      body: {
        ...res.body,
        invite: { ...res.body.invite, id: "id", email: "email", created_at: "t", expires_at: "t" },
        accept_url: (res.body.accept_url as string).replace(/[^/]+$/, "token"),
      },
    }));
    expect(masked[0]).toEqual(masked[1]);
    expect(masked[0]!.status).toBe(201);

    // The links' pages do not tell either.
    const previews = await Promise.all(
      answers.map((res) => request(app).get(`/api/invites/${linkToken(res.body.accept_url)}`)),
    );
    expect(Object.keys(previews[0]!.body).sort()).toEqual(Object.keys(previews[1]!.body).sort());
    expect(previews[0]!.body).not.toHaveProperty("account_exists");
    expect(await testPrisma().user.findUnique({ where: { email: unknown } })).toBeNull();
  });

  it("answers accepting with a name and a too-short password alike, whether the e-mail has an account or not", async () => {
    const admin = await createTestUser("admin");
    const cookie = (await login(app, admin.email)).cookie;
    const known = await createTestUser("known");
    const unknown = uniqueEmail("xxxxx");
    expect(unknown.length).toBe(known.email.length);
    const tokens: string[] = [];
    for (const email of [known.email, unknown]) {
      tokens.push(linkToken((await addMember(app, cookie, { email, role: "viewer" })).body.accept_url));
    }
    // The inviter holds both links (no mail server): the answers must not tell which address has an account.
    for (const body of [{ name: "Someone", password: "short" }, { name: "Someone" }, { name: "  ", password: "x" }]) {
      const answers = [];
      for (const token of tokens) answers.push(await request(app).post(`/api/invites/${token}/accept`).send(body));
      const [withAccount, without] = answers.map((res) => ({
        status: res.status,
        body: res.body,
        length: res.text.length,
      }));
      expect(withAccount).toEqual(without);
      expect([withAccount!.status, withAccount!.body.code]).toEqual([400, "validation_failed"]);
    }
    expect(await testPrisma().user.findUnique({ where: { email: unknown } })).toBeNull();
    expect(await testPrisma().membership.count({ where: { userId: known.user.id } })).toBe(1);
  });

  it("an account marked by the migration: its old password is refused until a reset link sets a new one", async () => {
    const admin = await createTestUser("acme");
    const adminCookie = (await login(app, admin.email)).cookie;
    const workspaceId = admin.workspace.workspaceId;
    // Made the old way: Acme's admin chose the password, and the account belongs to Acme only.
    const staff = await createTestUser("staff", "admin-chose-it");
    await testPrisma().membership.deleteMany({ where: { userId: staff.user.id } });
    await testPrisma().membership.create({ data: { userId: staff.user.id, workspaceId, role: "editor" } });
    const oldSession = (await login(app, staff.email, "admin-chose-it")).cookie;
    // What the migration does to it.
    await testPrisma().user.update({ where: { id: staff.user.id }, data: { passwordResetRequired: true } });
    await testPrisma().session.deleteMany({ where: { userId: staff.user.id } });

    expect((await request(app).get("/api/auth/session").set("Cookie", oldSession)).status).toBe(401);
    const refused = await request(app).post("/api/auth/login").send({ email: staff.email, password: "admin-chose-it" });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: expect.stringMatching(/password reset link/),
      code: "password_reset_required",
    });
    expect(refused.headers["set-cookie"]).toBeUndefined();
    // A wrong password answers as for any account: the mark is told only to whoever holds the password.
    const wrong = await request(app).post("/api/auth/login").send({ email: staff.email, password: "not-it-at-all" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "invalid_credentials"]);
    // Nor does an invite open it with that password.
    const other = await createTestUser("other");
    const invited = await addMember(app, (await login(app, other.email)).cookie, {
      email: staff.email,
      role: "viewer",
    });
    const viaInvite = await request(app)
      .post(`/api/invites/${linkToken(invited.body.accept_url)}/accept`)
      .send({ password: "admin-chose-it" });
    expect([viaInvite.status, viaInvite.body.code]).toEqual([403, "password_reset_required"]);

    const issued = await request(app)
      .post(`/api/workspace/members/${staff.user.id}/password-reset`)
      .set("Cookie", adminCookie);
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const token = linkToken(issued.body.reset_url);
    const preview = await request(app).get(`/api/auth/password-resets/${token}`);
    expect(preview.body).toEqual({ email: staff.email, expires_at: issued.body.expires_at });
    const tooShort = await request(app).post(`/api/auth/password-resets/${token}`).send({ password: "short" });
    expect([tooShort.status, tooShort.body.details[0].path]).toEqual([400, "password"]);
    const set = await request(app).post(`/api/auth/password-resets/${token}`).send({ password: "my-own-password" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ ok: true, email: staff.email });

    const again = await request(app).post(`/api/auth/password-resets/${token}`).send({ password: "another-one-1" });
    expect([again.status, again.body.code]).toEqual([409, "reset_used"]);
    const old = await request(app).post("/api/auth/login").send({ email: staff.email, password: "admin-chose-it" });
    expect([old.status, old.body.code]).toEqual([401, "invalid_credentials"]);
    const fresh = await request(app).post("/api/auth/login").send({ email: staff.email, password: "my-own-password" });
    expect(fresh.status).toBe(200);
    expect(fresh.body.workspace).toMatchObject({ workspaceId, role: "editor" });
    expect(sessionCookieOf(fresh)).toMatch(/^svc_session=/);
  });

  it("a reset link of an account that belongs to Eve's workspace too is the operator's to issue", async () => {
    const eve = await createTestUser("eve");
    const acme = await createTestUser("acme");
    // The pre-claimed account: Eve's workspace and Acme, both added the old way.
    const cfo = await createTestUser("cfo", "eve-knows-it");
    await testPrisma().membership.deleteMany({ where: { userId: cfo.user.id } });
    for (const workspaceId of [eve.workspace.workspaceId, acme.workspace.workspaceId]) {
      await testPrisma().membership.create({ data: { userId: cfo.user.id, workspaceId, role: "viewer" } });
    }
    for (const who of [eve, acme]) {
      const res = await request(app)
        .post(`/api/workspace/members/${cfo.user.id}/password-reset`)
        .set("Cookie", (await login(app, who.email)).cookie);
      expect([res.status, res.body.code]).toEqual([403, "reset_needs_operator"]);
    }
    expect(await testPrisma().passwordReset.count({ where: { userId: cfo.user.id } })).toBe(0);
  });
});
