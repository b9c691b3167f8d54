import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, linkToken, login, makeTestApps, uniqueEmail } from "../../../test/helpers/identity.js";
import { readAllPages } from "../../../test/helpers/pages.js";
import type { Role } from "../../../core/workspaces/permissions.js";

const appFor = makeTestApps();

/** A workspace with one member of each role, each logged in. */
async function teamWorkspace(app: Express) {
  const owner = await createTestUser("owner");
  const workspaceId = owner.workspace.workspaceId;
  const cookies: Record<Role, string> = { owner: (await login(app, owner.email)).cookie } as Record<Role, string>;
  const ids: Record<Role, string> = { owner: owner.user.id } as Record<Role, string>;
  for (const role of ["admin", "editor", "viewer"] as const) {
    const member = await createTestUser(role);
    await testPrisma().membership.create({ data: { userId: member.user.id, workspaceId, role } });
    cookies[role] = (await login(app, member.email, undefined, { workspaceId })).cookie;
    ids[role] = member.user.id;
  }
  return { workspaceId, cookies, ids };
}

describe("members and roles", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("pages the members in the order they joined", async () => {
    const team = await teamWorkspace(app);
    const { items, pages } = await readAllPages<{ role: string; user: { id: string } }>(
      app,
      team.cookies.viewer,
      "/api/workspace/members?limit=3",
    );
    expect(items.map((m) => m.role)).toEqual(["owner", "admin", "editor", "viewer"]);
    expect(items.map((m) => m.user.id)).toEqual([team.ids.owner, team.ids.admin, team.ids.editor, team.ids.viewer]);
    expect(pages).toBe(2);
    const bad = await request(app).get("/api/workspace/members?cursor=e30").set("Cookie", team.cookies.viewer);
    expect([bad.status, bad.body.code]).toEqual([400, "bad_request"]);
  });

  it("lists the members of the current workspace to every role", async () => {
    const team = await teamWorkspace(app);
    for (const role of ["owner", "admin", "editor", "viewer"] as const) {
      const res = await request(app).get("/api/workspace/members").set("Cookie", team.cookies[role]);
      expect(res.status).toBe(200);
      expect(res.body.items.map((m: { role: string }) => m.role)).toEqual(["owner", "admin", "editor", "viewer"]);
      expect(res.body.items[0]).toEqual({
        user: { id: team.ids.owner, email: expect.any(String), name: "owner name" },
        role: "owner",
        joined_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
  });

  // The role matrix: who may invite a member with which role. Nobody joins before accepting.
  it.each([
    ["viewer", "viewer", 403],
    ["editor", "viewer", 403],
    ["admin", "editor", 201],
    ["admin", "admin", 201],
    ["admin", "owner", 403],
    ["owner", "owner", 201],
  ] as const)("%s adding a %s answers %i, and adds nobody before they accept", async (actor, role, status) => {
    const team = await teamWorkspace(app);
    const newcomer = await createTestUser("newcomer");
    const res = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", team.cookies[actor])
      .send({ email: newcomer.email, role });
    expect(res.status).toBe(status);
    const membership = await testPrisma().membership.findUnique({
      where: { userId_workspaceId: { userId: newcomer.user.id, workspaceId: team.workspaceId } },
    });
    expect(membership).toBeNull();
    const invites = await testPrisma().invite.findMany({ where: { workspaceId: team.workspaceId } });
    expect(invites.map((i) => [i.email, i.role])).toEqual(status === 201 ? [[newcomer.email, role]] : []);
    if (status === 403) expect(res.body.code).toBe("forbidden");
  });

  it.each([
    ["viewer", "editor", "admin", 403],
    ["editor", "viewer", "editor", 403],
    ["admin", "editor", "viewer", 200],
    ["admin", "owner", "admin", 403],
    ["owner", "admin", "owner", 202],
  ] as const)("%s changing the %s to %s answers %i", async (actor, target, role, status) => {
    const team = await teamWorkspace(app);
    const res = await request(app)
      .put(`/api/workspace/members/${team.ids[target]}`)
      .set("Cookie", team.cookies[actor])
      .send({ role });
    expect(res.status).toBe(status);
    const stored = await testPrisma().membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: team.ids[target], workspaceId: team.workspaceId } },
    });
    expect(stored.role).toBe(status === 200 ? role : target);
  });

  it("offers the owner role: the member keeps their role until they accept the offer's link", async () => {
    const team = await teamWorkspace(app);
    const byAdmin = await request(app)
      .put(`/api/workspace/members/${team.ids.editor}`)
      .set("Cookie", team.cookies.admin)
      .send({ role: "owner" });
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, "forbidden"]);

    const offered = await request(app)
      .put(`/api/workspace/members/${team.ids.admin}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "owner" });
    expect(offered.status, JSON.stringify(offered.body)).toBe(202);
    expect(offered.body).toMatchObject({
      member: { user: { id: team.ids.admin }, role: "admin" },
      offer: { invite: { role: "owner" }, accept_url: expect.stringMatching(/^\/invite\//), delivery: "link" },
    });
    const roleOf = async (userId: string) =>
      (
        await testPrisma().membership.findUniqueOrThrow({
          where: { userId_workspaceId: { userId, workspaceId: team.workspaceId } },
        })
      ).role;
    expect(await roleOf(team.ids.admin)).toBe("admin");

    // The member accepts with their own session: it stays theirs, now as an owner.
    const accepted = await request(app)
      .post(`/api/invites/${linkToken(offered.body.offer.accept_url)}/accept`)
      .set("Cookie", team.cookies.admin)
      .send({});
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.headers["set-cookie"]).toBeUndefined();
    expect(accepted.body.workspace).toMatchObject({ workspaceId: team.workspaceId, role: "owner" });
    expect(await roleOf(team.ids.admin)).toBe("owner");
    // Two owners now: either may step down.
    const stepDown = await request(app)
      .put(`/api/workspace/members/${team.ids.owner}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "admin" });
    expect(stepDown.status).toBe(200);
  });

  it("drops an owner offer whose owner stepped down before it was accepted", async () => {
    const team = await teamWorkspace(app);
    const offered = await request(app)
      .put(`/api/workspace/members/${team.ids.editor}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "owner" });
    expect(offered.status).toBe(202);
    // The owner makes the admin owner too (accepted), then steps down to admin.
    const second = await request(app)
      .put(`/api/workspace/members/${team.ids.admin}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "owner" });
    await request(app)
      .post(`/api/invites/${linkToken(second.body.offer.accept_url)}/accept`)
      .set("Cookie", team.cookies.admin)
      .expect(200);
    await request(app)
      .put(`/api/workspace/members/${team.ids.owner}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "admin" })
      .expect(200);

    const late = await request(app)
      .post(`/api/invites/${linkToken(offered.body.offer.accept_url)}/accept`)
      .set("Cookie", team.cookies.editor);
    expect([late.status, late.body.code]).toEqual([410, "invite_withdrawn"]);
    const editor = await testPrisma().membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: team.ids.editor, workspaceId: team.workspaceId } },
    });
    expect(editor.role).toBe("editor");
  });

  it("never leaves a workspace without an owner", async () => {
    const team = await teamWorkspace(app);
    const demote = await request(app)
      .put(`/api/workspace/members/${team.ids.owner}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.code).toBe("last_owner");
    const leave = await request(app)
      .delete(`/api/workspace/members/${team.ids.owner}`)
      .set("Cookie", team.cookies.owner);
    expect(leave.status).toBe(409);
  });

  it("removes members: admins remove others, anyone may leave, and the removed member's sessions end", async () => {
    const team = await teamWorkspace(app);
    const byViewer = await request(app)
      .delete(`/api/workspace/members/${team.ids.editor}`)
      .set("Cookie", team.cookies.viewer);
    expect(byViewer.status).toBe(403);

    const byAdmin = await request(app)
      .delete(`/api/workspace/members/${team.ids.editor}`)
      .set("Cookie", team.cookies.admin);
    expect(byAdmin.status).toBe(200);
    expect((await request(app).get("/api/auth/session").set("Cookie", team.cookies.editor)).status).toBe(401);

    const leaving = await request(app)
      .delete(`/api/workspace/members/${team.ids.viewer}`)
      .set("Cookie", team.cookies.viewer);
    expect(leaving.status).toBe(200);
    expect((await request(app).get("/api/workspace/members").set("Cookie", team.cookies.viewer)).status).toBe(401);

    const ownerByAdmin = await request(app)
      .delete(`/api/workspace/members/${team.ids.owner}`)
      .set("Cookie", team.cookies.admin);
    expect(ownerByAdmin.status).toBe(403);
  });

  it("refuses a name or password for the new member with a 400 naming the field, and creates no account", async () => {
    const team = await teamWorkspace(app);
    const email = uniqueEmail("fresh");
    for (const [extra, fields] of [
      [{ name: "Fresh", password: "initial-pass-1" }, ["name", "password"]],
      [{ password: "initial-pass-1" }, ["password"]],
      [{ name: "Fresh" }, ["name"]],
    ] as const) {
      const res = await request(app)
        .post("/api/workspace/members")
        .set("Cookie", team.cookies.admin)
        .send({ email, role: "viewer", ...extra });
      expect([res.status, res.body.code]).toEqual([400, "validation_failed"]);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(fields);
      expect(res.body.details[0].message).toMatch(/no longer accepted: the invitee chooses their own/);
    }
    expect(await testPrisma().user.findUnique({ where: { email } })).toBeNull();
    expect(await testPrisma().invite.count({ where: { email } })).toBe(0);
  });

  it("issues a password reset link only for members whose every workspace the caller manages", async () => {
    const team = await teamWorkspace(app);
    const reset = (cookie: string, userId: string) =>
      request(app).post(`/api/workspace/members/${userId}/password-reset`).set("Cookie", cookie);
    expect((await reset(team.cookies.editor, team.ids.viewer)).status).toBe(403);
    expect([(await reset(team.cookies.admin, team.ids.owner)).status]).toEqual([403]);

    // The viewer belongs to this workspace only (testPrisma made the membership): the admin may.
    const only = await testPrisma().membership.deleteMany({
      where: { userId: team.ids.viewer, NOT: { workspaceId: team.workspaceId } },
    });
    expect(only.count).toBe(1);
    const issued = await reset(team.cookies.admin, team.ids.viewer);
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body).toEqual({
      email: expect.any(String),
      reset_url: expect.stringMatching(/^\/reset-password\/[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
      delivery: "link",
    });

    // The editor still has a workspace of their own, which this admin does not manage.
    const elsewhere = await reset(team.cookies.admin, team.ids.editor);
    expect([elsewhere.status, elsewhere.body.code]).toEqual([403, "reset_needs_operator"]);
    const other = await teamWorkspace(app);
    expect((await reset(team.cookies.owner, other.ids.viewer)).status).toBe(404);
  });

  it("answers 404 for members of another workspace, never their data", async () => {
    const team = await teamWorkspace(app);
    const other = await teamWorkspace(app);
    const change = await request(app)
      .put(`/api/workspace/members/${other.ids.viewer}`)
      .set("Cookie", team.cookies.owner)
      .send({ role: "admin" });
    expect(change.status).toBe(404);
    expect(change.body).toEqual({ error: "No such member in this workspace", code: "not_found" });
    const remove = await request(app)
      .delete(`/api/workspace/members/${other.ids.viewer}`)
      .set("Cookie", team.cookies.owner);
    expect(remove.status).toBe(404);
    const list = await request(app).get("/api/workspace/members").set("Cookie", team.cookies.owner);
    expect(list.body.items.map((m: { user: { id: string } }) => m.user.id)).not.toContain(other.ids.viewer);
    expect(
      (
        await testPrisma().membership.findFirstOrThrow({
          where: { userId: other.ids.viewer, workspaceId: other.workspaceId },
        })
      ).role,
    ).toBe("viewer");
  });

  it("refuses malformed member requests with 400", async () => {
    const team = await teamWorkspace(app);
    const badRole = await request(app)
      .post("/api/workspace/members")
      .set("Cookie", team.cookies.owner)
      .send({ email: uniqueEmail(), role: "superuser" });
    expect(badRole.status).toBe(400);
    expect(badRole.body.details[0].path).toBe("role");
    const badId = await request(app)
      .put("/api/workspace/members/not-an-id")
      .set("Cookie", team.cookies.owner)
      .send({ role: "viewer" });
    expect(badId.status).toBe(400);
  });
});

describe("workspaces", () => {
  it("lists the user's workspaces, creates one, and switches the session to it", async () => {
    const { app } = appFor();
    const user = await createTestUser("switcher");
    const { cookie } = await login(app, user.email);

    const created = await request(app).post("/api/workspaces").set("Cookie", cookie).send({ name: "Side project" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ workspaceId: expect.stringMatching(/^ws_/), name: "Side project", role: "owner" });

    const list = await request(app).get("/api/workspaces").set("Cookie", cookie);
    expect(list.body.items).toEqual([
      { workspaceId: user.workspace.workspaceId, name: "switcher workspace", role: "owner", current: true },
      { workspaceId: created.body.workspaceId, name: "Side project", role: "owner", current: false },
    ]);

    const switched = await request(app)
      .put("/api/auth/session")
      .set("Cookie", cookie)
      .send({ workspaceId: created.body.workspaceId });
    expect(switched.status).toBe(200);
    expect(switched.body.workspace).toEqual({
      workspaceId: created.body.workspaceId,
      name: "Side project",
      role: "owner",
    });
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).body.workspace.workspaceId).toBe(
      created.body.workspaceId,
    );

    const stranger = await createTestUser("not-mine");
    const refused = await request(app)
      .put("/api/auth/session")
      .set("Cookie", cookie)
      .send({ workspaceId: stranger.workspace.workspaceId });
    expect(refused.status).toBe(403);
  });

  it("needs a session for every /api endpoint beyond login and session", async () => {
    const { app } = appFor();
    for (const [method, path] of [
      ["get", "/api/workspaces"],
      ["post", "/api/workspaces"],
      ["get", "/api/workspace/members"],
      ["delete", "/api/workspace/members/usr_000000000000000000000000"],
      ["get", "/api/anything-else"],
    ] as const) {
      const res = await request(app)[method](path);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ error: "Authentication required: log in first", code: "unauthorized" });
    }
  });
});
