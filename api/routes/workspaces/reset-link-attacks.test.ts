// Reset-link attacks (issue 47), through the API on the real database: a link an admin of A issued
// for a member of A only, used after the member joined B as admin, opened B to A's admin; and an
// admin's new link voided the operator's rescue link of an account the admin had pre-claimed. A
// link now stands only while the account is as it was issued against, and the operator's pending
// link cannot be replaced from a workspace.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { handOver } from "../../../core/workspaces/link-delivery.js";
import { createPasswordResetsService } from "../../../core/workspaces/password-resets.service.js";
import { systemClock } from "../../../lib/clock.js";
import { testConfig, testPrisma } from "../../../test/helpers/context.js";
import {
  createTestUser,
  joinWorkspace,
  linkToken,
  login,
  makeTestApps,
  sessionCookieOf,
  TEST_PASSWORD,
  uniqueEmail,
} from "../../../test/helpers/identity.js";

const appFor = makeTestApps();

/** The operator's link for the account, as `svc users reset-link` issues it (no mail server: printed). */
async function operatorLink(userId: string): Promise<string> {
  const resets = createPasswordResetsService({
    prisma: testPrisma(),
    clock: systemClock,
    config: testConfig(),
    delivery: handOver,
  });
  const issued = await resets.issue(userId, null);
  expect(issued.delivery).toBe("link");
  return linkToken((issued as { reset_url: string }).reset_url);
}

const issueReset = (app: Express, cookie: string, userId: string) =>
  request(app).post(`/api/workspace/members/${userId}/password-reset`).set("Cookie", cookie);

const useReset = (app: Express, token: string, password: string) =>
  request(app).post(`/api/auth/password-resets/${token}`).send({ password });

/** An admin of Acme (its owner made them admin) and a member of Acme only, each with a session. */
async function acmeWithMember(app: Express, memberRole: "viewer" | "editor" = "editor") {
  const owner = await createTestUser("acme-owner");
  const ownerCookie = (await login(app, owner.email)).cookie;
  const admin = await createTestUser("acme-admin");
  const adminCookie = (await joinWorkspace(app, ownerCookie, admin, "admin")).cookie;
  // The member belongs to Acme only: their own workspace is gone (testPrisma), as the issue's was.
  const member = await createTestUser("member");
  await joinWorkspace(app, ownerCookie, member, memberRole);
  await testPrisma().workspace.delete({ where: { id: member.workspace.workspaceId } });
  return { workspaceId: owner.workspace.workspaceId, owner, ownerCookie, admin, adminCookie, member };
}

/** Whether the password opens the account (a login through the API). */
const opens = async (app: Express, email: string, password: string) =>
  (await request(app).post("/api/auth/login").send({ email, password })).status === 200;

describe("reset-link attacks", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("a link of Acme's admin stops when its member joins Bravo as admin: no takeover of Bravo", async () => {
    const acme = await acmeWithMember(app);
    const early = await issueReset(app, acme.adminCookie, acme.member.user.id);
    expect(early.status, JSON.stringify(early.body)).toBe(201);
    const earlyToken = linkToken(early.body.reset_url);

    // The member joins Bravo as admin, with their own password.
    const bravo = await createTestUser("bravo");
    const bravoCookie = (await login(app, bravo.email)).cookie;
    await joinWorkspace(app, bravoCookie, acme.member, "admin");
    const again = await issueReset(app, acme.adminCookie, acme.member.user.id);
    expect([again.status, again.body.code]).toEqual([403, "reset_needs_operator"]);

    // The earlier link no longer works: not on its page, not to set a password.
    const preview = await request(app).get(`/api/auth/password-resets/${earlyToken}`);
    expect([preview.status, preview.body.code]).toEqual([410, "reset_revoked"]);
    const takeover = await useReset(app, earlyToken, "acme-admin-chose-it");
    expect([takeover.status, takeover.body.code]).toEqual([410, "reset_revoked"]);
    expect(takeover.body.error).toMatch(/no longer works/);
    expect(await opens(app, acme.member.email, "acme-admin-chose-it")).toBe(false);
    const member = await request(app)
      .post("/api/auth/login")
      .send({ email: acme.member.email, password: TEST_PASSWORD, workspaceId: bravo.workspace.workspaceId });
    expect(member.status).toBe(200);
    expect(member.body.workspace).toMatchObject({ workspaceId: bravo.workspace.workspaceId, role: "admin" });
  });

  // Each way the account (or its issuer's authority) may change after the link: the link stops,
  // whether the path that changed it revoked its links or only the link's own check sees it.
  const changes: Array<[string, (acme: Awaited<ReturnType<typeof acmeWithMember>>) => Promise<void>]> = [
    [
      "the member makes a workspace of their own",
      async ({ member }) => {
        const cookie = (await login(app, member.email)).cookie;
        expect((await request(app).post("/api/workspaces").set("Cookie", cookie).send({ name: "Mine" })).status).toBe(
          201,
        );
      },
    ],
    [
      "the member changes their password",
      async ({ member }) => {
        const cookie = (await login(app, member.email)).cookie;
        const changed = await request(app)
          .put("/api/auth/password")
          .set("Cookie", cookie)
          .send({ current_password: TEST_PASSWORD, new_password: "the-members-own" });
        expect(changed.status).toBe(200);
      },
    ],
    [
      "a membership appears by a path that revokes nothing",
      async ({ member }) => {
        const elsewhere = await createTestUser("elsewhere");
        await testPrisma().membership.create({
          data: { userId: member.user.id, workspaceId: elsewhere.workspace.workspaceId, role: "admin" },
        });
      },
    ],
    [
      "the member's e-mail changes",
      async ({ member }) => {
        await testPrisma().user.update({ where: { id: member.user.id }, data: { email: uniqueEmail("moved") } });
      },
    ],
    [
      "the issuer is demoted to editor",
      async ({ admin, ownerCookie }) => {
        const demoted = await request(app)
          .put(`/api/workspace/members/${admin.user.id}`)
          .set("Cookie", ownerCookie)
          .send({ role: "editor" });
        expect(demoted.status).toBe(200);
      },
    ],
    [
      "the member is made owner (the issuing admin manages no owner)",
      async ({ workspaceId, member }) => {
        await testPrisma().membership.update({
          where: { userId_workspaceId: { userId: member.user.id, workspaceId } },
          data: { role: "owner" },
        });
      },
    ],
    [
      "the member is removed from Acme",
      async ({ member, ownerCookie }) => {
        const removed = await request(app)
          .delete(`/api/workspace/members/${member.user.id}`)
          .set("Cookie", ownerCookie);
        expect(removed.status).toBe(200);
      },
    ],
  ];
  for (const [change, apply] of changes) {
    it(`a member's link stops when ${change}`, async () => {
      const acme = await acmeWithMember(app);
      const issued = await issueReset(app, acme.adminCookie, acme.member.user.id);
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
      const token = linkToken(issued.body.reset_url);
      expect((await request(app).get(`/api/auth/password-resets/${token}`)).status).toBe(200);
      await apply(acme);
      const used = await useReset(app, token, "acme-admin-chose-it");
      expect([used.status, used.body.code]).toEqual([410, "reset_revoked"]);
      const row = await testPrisma().passwordReset.findFirstOrThrow({ where: { userId: acme.member.user.id } });
      expect([row.usedAt, row.revokedAt]).toEqual([null, expect.any(Date)]);
      const user = await testPrisma().user.findUniqueOrThrow({ where: { id: acme.member.user.id } });
      expect(await opens(app, user.email, "acme-admin-chose-it")).toBe(false);
    });
  }

  it("a link whose account and issuer are as they were still sets the password, once", async () => {
    const acme = await acmeWithMember(app);
    const issued = await issueReset(app, acme.adminCookie, acme.member.user.id);
    const token = linkToken(issued.body.reset_url);
    const set = await useReset(app, token, "a-new-password");
    expect([set.status, set.body]).toEqual([200, { ok: true, email: acme.member.email }]);
    expect(await opens(app, acme.member.email, "a-new-password")).toBe(true);
    const again = await useReset(app, token, "another-password");
    expect([again.status, again.body.code]).toEqual([409, "reset_used"]);
  });

  it("pre-claim rescue: Eve's new link cannot void the operator's, which gives the account back", async () => {
    const eve = await createTestUser("eve");
    const eveCookie = (await login(app, eve.email)).cookie;
    const cfo = uniqueEmail("cfo");
    // Eve holds her own invite's link (no mail server): she makes the CFO's account with her password.
    const invited = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", eveCookie)
      .send({ email: cfo, role: "viewer" });
    const made = await request(app)
      .post(`/api/invites/${linkToken(invited.body.accept_url)}/accept`)
      .send({ name: "CFO", password: "eve-knows-it" });
    expect(made.status).toBe(200);
    const account = await testPrisma().user.findUniqueOrThrow({ where: { email: cfo } });

    // The operator's rescue link for the real CFO.
    const token = await operatorLink(account.id);

    // Eve, who manages every workspace of the account, cannot replace it.
    const eves = await issueReset(app, eveCookie, account.id);
    expect([eves.status, eves.body.code]).toEqual([409, "reset_operator_pending"]);
    expect(await testPrisma().passwordReset.count({ where: { userId: account.id } })).toBe(1);

    expect((await request(app).get(`/api/auth/password-resets/${token}`)).body.email).toBe(cfo);
    const taken = await useReset(app, token, "the-real-cfo-chose");
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(await opens(app, cfo, "eve-knows-it")).toBe(false);
    const cfoSession = await request(app).post("/api/auth/login").send({ email: cfo, password: "the-real-cfo-chose" });
    expect(sessionCookieOf(cfoSession)).toMatch(/^svc_session=/);

    // Once used, the admin may issue links again (bound to the account as it is then).
    expect((await issueReset(app, eveCookie, account.id)).status).toBe(201);
  });

  it("the operator's link stands whatever the account's workspaces, and replaces a member's", async () => {
    const acme = await acmeWithMember(app);
    const admins = await issueReset(app, acme.adminCookie, acme.member.user.id);
    const rescue = await operatorLink(acme.member.user.id);
    const replaced = await useReset(app, linkToken(admins.body.reset_url), "acme-admin-chose-it");
    expect([replaced.status, replaced.body.code]).toEqual([404, "reset_not_found"]);
    // Removed from Acme since: the operator's link still works.
    await request(app).delete(`/api/workspace/members/${acme.member.user.id}`).set("Cookie", acme.ownerCookie);
    const set = await useReset(app, rescue, "the-members-own");
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });
});

describe("reset link requests per address", () => {
  it("answers 429 with Retry-After past PASSWORD_RESET_MAX_REQUESTS_PER_IP, counted per client address", async () => {
    const { app } = appFor({ TRUSTED_PROXIES: "loopback", PASSWORD_RESET_MAX_REQUESTS_PER_IP: "3" });
    // Addresses of a documentation range, random per run: test files and runs share the counters.
    const address = (range: string) => `${range}.${Math.floor(Math.random() * 250) + 1}`;
    const [guesser, other] = [address("198.51.100"), address("203.0.113")];
    const guess = (from: string) =>
      request(app)
        .get(`/api/auth/password-resets/${"A".repeat(43)}`)
        .set("X-Forwarded-For", from);
    for (let i = 0; i < 3; i++) expect((await guess(guesser)).status).toBe(404);
    const limited = await guess(guesser);
    expect([limited.status, limited.body.code]).toEqual([429, "rate_limited"]);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Using a link counts alike, and another address is not held back.
    const used = await request(app)
      .post(`/api/auth/password-resets/${"B".repeat(43)}`)
      .set("X-Forwarded-For", guesser)
      .send({ password: "whatever-pass-1" });
    expect(used.status).toBe(429);
    expect((await guess(other)).status).toBe(404);
  });
});
