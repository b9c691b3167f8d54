import { randomBytes } from "node:crypto";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../../test/helpers/identity.js";
import { readAllPages } from "../../../test/helpers/pages.js";

const appFor = makeTestApps();

const definition = (message = "hello") => ({
  nodes: [
    { id: "start", type: "manual", position: { x: 10, y: 20 } },
    { id: "say", type: "log", config: { message }, ui: { color: "teal" } },
  ],
  edges: [{ from: "start", to: "say" }],
  viewport: { x: 0, y: 0, zoom: 1.5 },
});

async function owner(app: Express) {
  const user = await createTestUser("flows");
  const { cookie } = await login(app, user.email);
  return { ...user, cookie };
}

describe("flows API", () => {
  let app: Express;
  beforeAll(() => {
    app = appFor().app;
  });

  it("creates a flow, round-trips presentational fields, and lists it with the spec's fields and its last run", async () => {
    const { cookie } = await owner(app);
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Greeter", definition: definition() });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/flows/${created.body.id}`);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^wf_[0-9a-f]{24}$/),
      name: "Greeter",
      status: "active",
      version: 1,
      description: "",
    });
    expect(created.body.definition.nodes[0].position).toEqual({ x: 10, y: 20 });
    expect(created.body.definition.nodes[1].ui).toEqual({ color: "teal" });
    expect(created.body.definition.viewport).toEqual({ x: 0, y: 0, zoom: 1.5 });

    const fetched = await request(app).get(`/api/flows/${created.body.id}`).set("Cookie", cookie);
    expect(fetched.body).toEqual(created.body);

    const list = await request(app).get("/api/flows").set("Cookie", cookie);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      {
        id: created.body.id,
        name: "Greeter",
        status: "active",
        version: 1,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        tags: [],
        draft_version: null,
        last_run: null,
      },
    ]);
    expect(Object.keys(list.body.items[0]).sort()).toEqual([
      "draft_version",
      "id",
      "last_run",
      "name",
      "status",
      "tags",
      "updated_at",
      "version",
    ]);
  });

  it("refuses an invalid definition with every problem and stores nothing", async () => {
    const { cookie, workspace } = await owner(app);
    const res = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({
        name: "Broken",
        definition: {
          nodes: [
            { id: "a", type: "manual" },
            { id: "b", type: "nope" },
            { id: "c", type: "log", config: {} },
          ],
          edges: [
            { from: "a", to: "zzz" },
            { from: "c", to: "a" },
          ],
        },
      });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_definition");
    expect(res.body.error).toBe("The flow definition is invalid");
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "definition.edges[0].to",
      "definition.nodes[0].id",
      "definition.nodes[1].type",
      "definition.nodes[2].config.message",
    ]);
    expect(await testPrisma().flow.count({ where: { workspaceId: workspace.workspaceId } })).toBe(0);
  });

  it("stores a node's error handling and refuses a wrong one at its path", async () => {
    const { cookie } = await owner(app);
    const handled = {
      nodes: [
        { id: "start", type: "manual" },
        { id: "say", type: "log", config: { message: "hi" }, on_error: "branch", retry: { max_attempts: 2 } },
        { id: "oops", type: "log", config: { message: "{{ input.error.message }}" } },
      ],
      edges: [
        { from: "start", to: "say" },
        { from: "say", to: "oops", branch: "error" },
      ],
    };
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Handled", definition: handled });
    expect(created.status).toBe(201);
    expect(created.body.definition.nodes[1]).toMatchObject({ on_error: "branch", retry: { max_attempts: 2 } });
    expect(created.body.definition.edges[1]).toEqual({ from: "say", to: "oops", branch: "error" });

    const wrong = structuredClone(handled);
    Object.assign(wrong.nodes[1]!, { on_error: "continue", timeout_ms: 10 });
    const res = await request(app).post("/api/flows").set("Cookie", cookie).send({ name: "Wrong", definition: wrong });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_definition", error: "The flow definition is invalid" });
    expect(res.body.details).toEqual([
      { path: "definition.nodes[1].timeout_ms", message: expect.any(String) },
      ...[0, 1].map(() => expect.objectContaining({ path: expect.stringMatching(/^definition\.edges\[\d\]/) })),
    ]);
    delete (wrong.nodes[1] as { timeout_ms?: number }).timeout_ms;
    const edge = await request(app).post("/api/flows").set("Cookie", cookie).send({ name: "Wrong", definition: wrong });
    expect(edge.body.details).toEqual([
      { path: "definition.edges[1].branch", message: '"say" has no error handle: set its on_error to "branch"' },
    ]);
  });

  it("refuses malformed bodies with 400 and a path per problem", async () => {
    const { cookie } = await owner(app);
    const missing = await request(app).post("/api/flows").set("Cookie", cookie).send({ description: 5 });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "definition",
      "description",
      "name",
    ]);
    const unknown = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "x", definition: definition(), colour: "red" });
    expect(unknown.status).toBe(400);
    expect((await request(app).get("/api/flows?limit=0").set("Cookie", cookie)).status).toBe(400);
    expect((await request(app).get("/api/flows?cursor=garbage").set("Cookie", cookie)).status).toBe(400);
    expect((await request(app).get("/api/flows/wf_nothex").set("Cookie", cookie)).status).toBe(400);
  });

  it("stores a new immutable version for each definition change, and refuses stale updates", async () => {
    const { cookie, workspace, user } = await owner(app);
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "V", definition: definition("one") });

    const renamed = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 1, name: "V renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "V renamed", version: 1 });

    const edited = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 1, definition: definition("two") });
    expect(edited.status).toBe(200);
    expect(edited.body.version).toBe(2);
    expect(edited.body.definition.nodes[1].config.message).toBe("two");

    const stale = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 1, definition: definition("three") });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      error: "This update edits version 1; the flow is at version 2",
      code: "version_conflict",
      current_version: 2,
    });

    const versions = await request(app).get(`/api/flows/${flow.id}/versions`).set("Cookie", cookie);
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions.body.items[0].created_by).toBe(user.id);
    const first = await request(app).get(`/api/flows/${flow.id}/versions/1`).set("Cookie", cookie);
    expect(first.body).toMatchObject({ flow_id: flow.id, version: 1 });
    expect(first.body.definition.nodes[1].config.message).toBe("one");
    expect((await request(app).get(`/api/flows/${flow.id}/versions/3`).set("Cookie", cookie)).status).toBe(404);

    // The same definition again is not a new version.
    const same = await request(app)
      .put(`/api/flows/${flow.id}`)
      .set("Cookie", cookie)
      .send({ version: 2, definition: definition("two") });
    expect(same.body.version).toBe(2);

    const events = await testPrisma().event.findMany({
      where: { workspaceId: workspace.workspaceId },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => e.type)).toEqual(["flow.updated", "flow.updated"]);
    expect(events[1]!.payload).toMatchObject({
      event: "flow.updated",
      workspace_id: workspace.workspaceId,
      data: { workflow_id: flow.id, workflow_name: "V renamed", version: 2, status: "active", changed: ["definition"] },
    });
  });

  it("lets exactly one of two concurrent updates of the same version win", async () => {
    const { cookie } = await owner(app);
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Race", definition: definition() });
    const results = await Promise.all(
      ["left", "right"].map((message) =>
        request(app)
          .put(`/api/flows/${flow.id}`)
          .set("Cookie", cookie)
          .send({ version: 1, definition: definition(message) }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await testPrisma().flowVersion.count({ where: { flowId: flow.id } })).toBe(2);
  });

  it("refuses one of two concurrent saves that close a flow.call cycle between them (X calls Y, Y calls X)", async () => {
    const { cookie } = await owner(app);
    const create = async (name: string) =>
      (await request(app).post("/api/flows").set("Cookie", cookie).send({ name, definition: definition() })).body
        .id as string;
    const calling = (flowId: string) => ({
      nodes: [
        { id: "start", type: "manual" },
        { id: "call", type: "flow.call", config: { flow_id: flowId } },
      ],
      edges: [{ from: "start", to: "call" }],
    });
    // Several pairs, each saved at once: every pair must end with exactly one of its saves refused.
    for (let pair = 0; pair < 5; pair++) {
      const [x, y] = [await create(`X${pair}`), await create(`Y${pair}`)];
      const saves = await Promise.all(
        [
          [x, y],
          [y, x],
        ].map(([saved, called]) =>
          request(app)
            .put(`/api/flows/${saved}`)
            .set("Cookie", cookie)
            .send({ version: 1, definition: calling(called!) }),
        ),
      );
      expect(saves.map((r) => r.status).sort(), `pair ${pair}`).toEqual([200, 400]);
      const refused = saves.find((r) => r.status === 400)!;
      expect(refused.body).toMatchObject({
        code: "invalid_definition",
        details: [
          { path: "definition.nodes[1].config.flow_id", message: expect.stringContaining("starts this flow again") },
        ],
      });
      const versions = await testPrisma().flow.findMany({ where: { id: { in: [x, y] } }, select: { version: true } });
      expect(versions.map((flow) => flow.version).sort(), `pair ${pair}`).toEqual([1, 2]);
    }
  });

  it("pages a flow's versions, newest first", async () => {
    const { cookie } = await owner(app);
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Versions", definition: definition("v1") });
    for (let version = 1; version < 5; version++) {
      const res = await request(app)
        .put(`/api/flows/${flow.id}`)
        .set("Cookie", cookie)
        .send({ version, definition: definition(`v${version + 1}`) });
      expect(res.status).toBe(200);
    }
    const { items, pages } = await readAllPages<{ version: number }>(
      app,
      cookie,
      `/api/flows/${flow.id}/versions?limit=2`,
    );
    expect(items.map((v) => v.version)).toEqual([5, 4, 3, 2, 1]);
    expect(pages).toBe(3);

    const bad = await request(app).get(`/api/flows/${flow.id}/versions?cursor=nope`).set("Cookie", cookie);
    expect([bad.status, bad.body.code]).toEqual([400, "bad_request"]);
    const tooMany = await request(app).get(`/api/flows/${flow.id}/versions?limit=201`).set("Cookie", cookie);
    expect([tooMany.status, tooMany.body.code]).toEqual([400, "validation_failed"]);
  });

  it("pages with a cursor, newest first, and filters by status", async () => {
    const { cookie } = await owner(app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { body } = await request(app)
        .post("/api/flows")
        .set("Cookie", cookie)
        .send({ name: `F${i}`, status: i % 2 ? "inactive" : "active", definition: definition() });
      ids.push(body.id);
    }
    const { items, pages } = await readAllPages<{ id: string }>(app, cookie, "/api/flows?limit=2");
    expect(items.map((f) => f.id)).toEqual([...ids].reverse());
    expect(pages).toBe(3);
    const inactive = await request(app).get("/api/flows?status=inactive").set("Cookie", cookie);
    expect(inactive.body.items.map((f: { name: string }) => f.name)).toEqual(["F3", "F1"]);
  });

  it("lists each flow's newest run (by started_at, then id) computed with the page, never another flow's", async () => {
    const { cookie, workspace } = await owner(app);
    const create = async (name: string) =>
      (await request(app).post("/api/flows").set("Cookie", cookie).send({ name, definition: definition() })).body
        .id as string;
    const never = await create("Never run");
    const busy = await create("Busy");
    const quiet = await create("Quiet");
    const at = (iso: string) => new Date(iso);
    const run = (id: string, flowId: string, startedAt: string, extra: object = {}) =>
      testPrisma().run.create({
        data: {
          id,
          workspaceId: workspace.workspaceId,
          flowId,
          flowName: "x",
          version: 1,
          trigger: "api",
          input: {},
          startedAt: at(startedAt),
          ...extra,
        },
      });
    const prefix = randomBytes(10).toString("hex");
    const hex = (n: number) => `${prefix}${n.toString(16).padStart(4, "0")}`;
    await run(`run_${hex(0x1a1)}`, busy, "2026-01-01T10:00:00.000Z", { status: "success" });
    // The same start instant: the greater id is the newer, as in GET /api/runs.
    await run(`run_${hex(0x1a3)}`, busy, "2026-01-02T10:00:00.000Z", {
      status: "failed",
      finishedAt: at("2026-01-02T10:00:01.500Z"),
      durationMs: 1500,
    });
    await run(`run_${hex(0x1a2)}`, busy, "2026-01-02T10:00:00.000Z", { status: "success" });
    await run(`run_${hex(0x1b1)}`, quiet, "2025-12-31T23:59:59.999Z", { status: "running" });

    const { body } = await request(app).get("/api/flows").set("Cookie", cookie);
    const lastRuns = Object.fromEntries(
      (body.items as Array<{ id: string; last_run: unknown }>).map((f) => [f.id, f.last_run]),
    );
    expect(lastRuns).toEqual({
      [never]: null,
      [busy]: {
        id: `run_${hex(0x1a3)}`,
        status: "failed",
        started_at: "2026-01-02T10:00:00.000Z",
        finished_at: "2026-01-02T10:00:01.500Z",
        duration_ms: 1500,
      },
      [quiet]: {
        id: `run_${hex(0x1b1)}`,
        status: "running",
        started_at: "2025-12-31T23:59:59.999Z",
        finished_at: null,
        duration_ms: null,
      },
    });
    // The cursor still pages the flows (newest updated first), each page with its flows' runs.
    const first = await request(app).get("/api/flows?limit=1").set("Cookie", cookie);
    expect(first.body.items.map((f: { id: string }) => f.id)).toEqual([quiet]);
    const second = await request(app).get(`/api/flows?limit=1&cursor=${first.body.next_cursor}`).set("Cookie", cookie);
    expect(second.body.items.map((f: { id: string }) => f.id)).toEqual([busy]);
    expect(second.body.items[0].last_run.id).toBe(`run_${hex(0x1a3)}`);
    const inactive = await request(app).get("/api/flows?status=inactive").set("Cookie", cookie);
    expect(inactive.body.items).toEqual([]);
  });

  it("has one path: /api/workflows answers only the run endpoint, and deletes under /api/flows", async () => {
    const { cookie } = await owner(app);
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "One path", definition: definition() });
    expect((await request(app).get(`/api/workflows/${flow.id}`).set("Cookie", cookie)).status).toBe(404);
    expect((await request(app).post("/api/workflows").set("Cookie", cookie).send({})).status).toBe(404);
    expect((await request(app).post(`/api/flows/${flow.id}/run`).set("Cookie", cookie).send({})).status).toBe(404);
    expect((await request(app).delete(`/api/flows/${flow.id}`).set("Cookie", cookie)).body).toEqual({
      ok: true,
      cancelled_runs: [],
    });
    expect((await request(app).get(`/api/flows/${flow.id}`).set("Cookie", cookie)).status).toBe(404);
    expect(await testPrisma().flowVersion.count({ where: { flowId: flow.id } })).toBe(0);
  });

  it("keeps workspaces apart: another workspace's flow answers 404", async () => {
    const alice = await owner(app);
    const bob = await owner(app);
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", alice.cookie)
      .send({ name: "Private", definition: definition() });
    for (const [method, path, body] of [
      ["get", `/api/flows/${flow.id}`, undefined],
      ["put", `/api/flows/${flow.id}`, { version: 1, name: "stolen" }],
      ["delete", `/api/flows/${flow.id}`, undefined],
      ["get", `/api/flows/${flow.id}/versions`, undefined],
      ["get", `/api/flows/${flow.id}/versions/1`, undefined],
    ] as const) {
      const res = await request(app)[method](path).set("Cookie", bob.cookie).send(body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: "No such flow in this workspace", code: "not_found" });
    }
    expect((await request(app).get("/api/flows").set("Cookie", bob.cookie)).body.items).toEqual([]);
    expect((await testPrisma().flow.findUniqueOrThrow({ where: { id: flow.id } })).name).toBe("Private");
  });

  it("lets viewers read and only editors and up write", async () => {
    const team = await owner(app);
    const viewer = await createTestUser("viewer");
    await testPrisma().membership.create({
      data: { userId: viewer.user.id, workspaceId: team.workspace.workspaceId, role: "viewer" },
    });
    const { cookie: viewerCookie } = await login(app, viewer.email, undefined, {
      workspaceId: team.workspace.workspaceId,
    });
    const { body: flow } = await request(app)
      .post("/api/flows")
      .set("Cookie", team.cookie)
      .send({ name: "Team", definition: definition() });

    expect((await request(app).get(`/api/flows/${flow.id}`).set("Cookie", viewerCookie)).status).toBe(200);
    const create = await request(app)
      .post("/api/flows")
      .set("Cookie", viewerCookie)
      .send({ name: "x", definition: definition() });
    expect(create.status).toBe(403);
    expect(
      (await request(app).put(`/api/flows/${flow.id}`).set("Cookie", viewerCookie).send({ version: 1, name: "y" }))
        .status,
    ).toBe(403);
    expect((await request(app).delete(`/api/flows/${flow.id}`).set("Cookie", viewerCookie)).status).toBe(403);
  });
});

describe("templates", () => {
  it("lists starter flows and creates a flow from one", async () => {
    const { app } = appFor();
    const { cookie } = await owner(app);
    const templates = await request(app).get("/api/templates").set("Cookie", cookie);
    expect(templates.body.items.length).toBeGreaterThanOrEqual(3);

    for (const template of templates.body.items as Array<{ id: string; name: string }>) {
      const created = await request(app).post("/api/flows").set("Cookie", cookie).send({ template: template.id });
      expect(created.status, template.id).toBe(201);
      expect(created.body.name).toBe(template.name);
    }
    const named = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ template: "hello-world", name: "Mine" });
    expect(named.body.name).toBe("Mine");
    const unknown = await request(app).post("/api/flows").set("Cookie", cookie).send({ template: "nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("template_not_found");
  });
});
