// Managing flows through the API: duplicate, search by name, rename, archive and unarchive; who
// may do each (viewers and read tokens read, editors change) and what another workspace sees.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { createTestUser, joinWorkspace, login, makeTestApps } from "../../../test/helpers/identity.js";
import { readAllPages } from "../../../test/helpers/pages.js";

const appFor = makeTestApps();

const hookFlow = {
  nodes: [
    { id: "hook", type: "webhook", config: {} },
    { id: "say", type: "log", config: { message: "hi" } },
  ],
  edges: [{ from: "hook", to: "say" }],
};

async function owner(app: Express) {
  const user = await createTestUser("manage");
  const { cookie } = await login(app, user.email);
  return { ...user, cookie };
}

async function createFlow(app: Express, cookie: string, body: object) {
  const res = await request(app).post("/api/flows").set("Cookie", cookie).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; version: number; hook: { path: string } | null };
}

async function tokenOf(app: Express, cookie: string, scopes: string[]) {
  const res = await request(app).post("/api/workspace/tokens").set("Cookie", cookie).send({ name: "t", scopes });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

describe("managing flows", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("duplicates a flow as a new inactive flow with its current definition and a hook of its own", async () => {
    const { cookie } = await owner(app);
    const source = await createFlow(app, cookie, {
      name: "Orders in",
      description: "from the shop",
      definition: hookFlow,
    });
    const saved = await request(app)
      .put(`/api/flows/${source.id}`)
      .set("Cookie", cookie)
      .send({
        version: 1,
        definition: { ...hookFlow, nodes: [hookFlow.nodes[0], { ...hookFlow.nodes[1], config: { message: "v2" } }] },
      });
    expect(saved.body.version).toBe(2);

    const copy = await request(app).post(`/api/flows/${source.id}/duplicate`).set("Cookie", cookie);
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    expect(copy.headers.location).toBe(`/api/flows/${copy.body.id}`);
    expect(copy.body).toMatchObject({
      name: "Orders in (copy)",
      description: "from the shop",
      status: "inactive",
      version: 1,
      definition: saved.body.definition,
    });
    expect(copy.body.id).not.toBe(source.id);
    expect(copy.body.hook).toMatchObject({ live: false, node_id: "hook" });
    expect(copy.body.hook.path).not.toBe(saved.body.hook.path);
    // The source is as it was; the copy has one version, by its duplicator.
    const after = await request(app).get(`/api/flows/${source.id}`).set("Cookie", cookie);
    expect(after.body).toMatchObject({ name: "Orders in", status: "active", version: 2 });
    const versions = await request(app).get(`/api/flows/${copy.body.id}/versions`).set("Cookie", cookie);
    expect(versions.body.items).toEqual([
      expect.objectContaining({ version: 1, created_by: expect.stringMatching(/^usr_/) }),
    ]);
    // The copy's hook does not answer until it is activated.
    expect((await request(app).post(copy.body.hook.path).send({})).status).toBe(404);

    // A name at the longest allowed stays within it.
    const long = await createFlow(app, cookie, { name: "x".repeat(200), definition: hookFlow });
    const longCopy = await request(app).post(`/api/flows/${long.id}/duplicate`).set("Cookie", cookie);
    expect(longCopy.body.name).toHaveLength(200);
    expect(longCopy.body.name.endsWith("x (copy)")).toBe(true);
  });

  it("lets viewers and read tokens read but not duplicate, rename or archive; another workspace sees no flow", async () => {
    const { cookie } = await owner(app);
    const flow = await createFlow(app, cookie, { name: "Guarded", definition: hookFlow });
    const viewer = await joinWorkspace(app, cookie, await createTestUser("viewer"), "viewer");
    expect((await request(app).get(`/api/flows/${flow.id}`).set("Cookie", viewer.cookie)).status).toBe(200);
    const byViewer = await request(app).post(`/api/flows/${flow.id}/duplicate`).set("Cookie", viewer.cookie);
    expect(byViewer.status).toBe(403);
    expect(byViewer.body).toMatchObject({ code: "forbidden", error: expect.any(String) });
    const renameByViewer = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", viewer.cookie)
      .send({ version: 1, name: "Mine" });
    expect(renameByViewer.status).toBe(403);

    const reader = await tokenOf(app, cookie, ["read"]);
    const listed = await request(app).get("/api/flows?q=guard").set("Authorization", `Bearer ${reader}`);
    expect(listed.body.items.map((f: { id: string }) => f.id)).toEqual([flow.id]);
    const byReader = await request(app)
      .post(`/api/flows/${flow.id}/duplicate`)
      .set("Authorization", `Bearer ${reader}`);
    expect(byReader.status).toBe(403);
    expect(byReader.body).toMatchObject({ code: "insufficient_scope", required_scope: "write" });

    const editor = await joinWorkspace(app, cookie, await createTestUser("editor"), "editor");
    expect((await request(app).post(`/api/flows/${flow.id}/duplicate`).set("Cookie", editor.cookie)).status).toBe(201);

    const stranger = await owner(app);
    const foreign = await request(app).post(`/api/flows/${flow.id}/duplicate`).set("Cookie", stranger.cookie);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: "not_found", error: expect.any(String) });
    const none = await request(app).get("/api/flows?q=Guarded").set("Cookie", stranger.cookie);
    expect(none.body.items).toEqual([]);
    const badId = await request(app).post("/api/flows/nope/duplicate").set("Cookie", cookie);
    expect(badId.status).toBe(400);
    // Two copies now: the editor's, and none of the refused ones.
    const copies = await request(app).get("/api/flows?q=(copy)").set("Cookie", cookie);
    expect(copies.body.items.map((f: { name: string }) => f.name)).toEqual(["Guarded (copy)"]);
  });

  it("searches names on the server, case-insensitively and literally, a page at a time", async () => {
    const { cookie } = await owner(app);
    for (const name of ["Invoice sync A", "invoice SYNC B", "Payroll", "100% done", "100x done", "a_b", "axb"]) {
      await createFlow(app, cookie, { name, definition: hookFlow });
    }
    const names = async (q: string, limit = 50) =>
      (await readAllPages<{ name: string }>(app, cookie, `/api/flows?q=${encodeURIComponent(q)}&limit=${limit}`)).items
        .map((f) => f.name)
        .sort();
    expect(await names("invoice sync", 1)).toEqual(["Invoice sync A", "invoice SYNC B"]);
    expect(await names("  PAYROLL ")).toEqual(["Payroll"]);
    expect(await names("100%")).toEqual(["100% done"]);
    expect(await names("a_b")).toEqual(["a_b"]);
    expect(await names("nothing like it")).toEqual([]);
    const withStatus = await request(app).get("/api/flows?q=done&status=inactive").set("Cookie", cookie);
    expect(withStatus.body.items).toEqual([]);

    for (const q of ["", "   ", "y".repeat(201)]) {
      const bad = await request(app)
        .get(`/api/flows?q=${encodeURIComponent(q)}`)
        .set("Cookie", cookie);
      expect(bad.status, q).toBe(400);
      expect(bad.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
  });

  it("renames, archives (runs refused) and unarchives a flow; a bad name is refused", async () => {
    const { cookie } = await owner(app);
    const flow = await createFlow(app, cookie, { name: "Before", definition: hookFlow });
    const put = (body: object) => request(app).put(`/api/flows/${flow.id}`).set("Cookie", cookie).send(body);
    for (const name of ["", "   ", "n".repeat(201), 42]) {
      const bad = await put({ version: 1, name });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    const renamed = await put({ version: 1, name: "After" });
    expect(renamed.body).toMatchObject({ name: "After", version: 1 });

    const archived = await put({ version: 1, status: "archived" });
    expect(archived.body).toMatchObject({ status: "archived", hook: { live: false } });
    const run = await request(app).post(`/api/workflows/${flow.id}/run`).set("Cookie", cookie).send({});
    expect(run.status).toBe(409);
    expect(run.body.code).toBe("flow_not_active");
    const hook = await request(app).post(archived.body.hook.path).send({});
    expect(hook.status).toBe(404);
    const listed = await request(app).get("/api/flows?status=archived").set("Cookie", cookie);
    expect(listed.body.items.map((f: { id: string }) => f.id)).toEqual([flow.id]);

    const back = await put({ version: 1, status: "active" });
    expect(back.body).toMatchObject({ status: "active", hook: { live: true } });
  });

  it("keeps tags on a flow (lower case, no repeats), filters by one, and copies them with a duplicate", async () => {
    const { cookie } = await owner(app);
    const billing = await createFlow(app, cookie, {
      name: "Billing",
      tags: ["Finance", "finance ", "nightly"],
      definition: hookFlow,
    });
    const other = await createFlow(app, cookie, { name: "Other", definition: hookFlow });
    const got = await request(app).get(`/api/flows/${billing.id}`).set("Cookie", cookie);
    expect(got.body.tags).toEqual(["finance", "nightly"]);
    expect((await request(app).get(`/api/flows/${other.id}`).set("Cookie", cookie)).body.tags).toEqual([]);

    const tagged = async (tag: string) =>
      (
        await request(app)
          .get(`/api/flows?tag=${encodeURIComponent(tag)}`)
          .set("Cookie", cookie)
      ).body.items.map((f: { id: string; tags: string[] }) => [f.id, f.tags]);
    expect(await tagged("FINANCE")).toEqual([[billing.id, ["finance", "nightly"]]]);
    expect(await tagged("fin")).toEqual([]);

    const retagged = await request(app)
      .put(`/api/flows/${other.id}`)
      .set("Cookie", cookie)
      .send({ version: 1, tags: ["finance"] });
    expect(retagged.body).toMatchObject({ tags: ["finance"], version: 1 });
    expect((await tagged("finance")).map(([id]: [string]) => id).sort()).toEqual([billing.id, other.id].sort());
    const copy = await request(app).post(`/api/flows/${billing.id}/duplicate`).set("Cookie", cookie);
    expect(copy.body.tags).toEqual(["finance", "nightly"]);

    // Bad tags and bad tag filters are refused, and change nothing.
    for (const tags of [
      [""],
      ["-lead"],
      ["a,b"],
      ["x".repeat(41)],
      Array.from({ length: 21 }, (_, i) => `t${i}`),
      "finance",
    ]) {
      const bad = await request(app).put(`/api/flows/${other.id}`).set("Cookie", cookie).send({ version: 1, tags });
      expect(bad.status, JSON.stringify(tags)).toBe(400);
      expect(bad.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect((await request(app).get("/api/flows?tag=%25").set("Cookie", cookie)).status).toBe(400);
    expect((await request(app).get(`/api/flows/${other.id}`).set("Cookie", cookie)).body.tags).toEqual(["finance"]);
  });

  it("keeps a note with each new version, and shows who saved it", async () => {
    const { cookie, user } = await owner(app);
    const flow = await createFlow(app, cookie, { name: "Noted", definition: hookFlow });
    const changed = { ...hookFlow, nodes: [hookFlow.nodes[0], { ...hookFlow.nodes[1], config: { message: "v2" } }] };
    const saved = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 1, definition: changed, note: "  Say v2 instead  " });
    expect(saved.body.version).toBe(2);
    // A note without a new definition makes no version.
    const renamed = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 2, name: "Noted again", note: "rename" });
    expect(renamed.body.version).toBe(2);
    // A version saved by an API token is told by the token's name.
    const writer = await tokenOf(app, cookie, ["write"]);
    const byToken = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Authorization", `Bearer ${writer}`)
      .send({ version: 2, definition: hookFlow });
    expect(byToken.body.version).toBe(3);
    const versions = await request(app).get(`/api/flows/${flow.id}/versions`).set("Cookie", cookie);
    const author = "manage name";
    expect(versions.body.items).toEqual([
      { version: 3, created_at: expect.any(String), created_by: expect.any(String), author: 'token "t"', note: null },
      { version: 2, created_at: expect.any(String), created_by: user.id, author, note: "Say v2 instead" },
      { version: 1, created_at: expect.any(String), created_by: user.id, author, note: null },
    ]);
    expect(versions.body.items[0].created_by).not.toBe(user.id);
    const one = await request(app).get(`/api/flows/${flow.id}/versions/2`).set("Cookie", cookie);
    expect(one.body).toMatchObject({ version: 2, note: "Say v2 instead", created_by: user.id, author });
    const tooLong = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 3, definition: changed, note: "n".repeat(501) });
    expect(tooLong.status).toBe(400);
  });
});
