// Draft and publish as separate steps (issue 51), against the real API, worker, Temporal and
// PostgreSQL: a definition saved with `publish: false` is a new version that production does not
// run (API starts, the hook, the schedule) until POST /api/flows/{id}/publish; a test run without
// a definition runs the draft; publishing an older version rolls back and keeps the draft; stale
// versions, unknown versions, other workspaces and viewers are refused.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

const saying = (said: string) => flow([{ id: "say", type: "set", config: { fields: { said } } }], [["start", "say"]]);

const put = (flowId: string, body: object, cookie = h.cookie) =>
  request(h.app).put(`/api/flows/${flowId}`).set("Cookie", cookie).send(body);
const publish = (flowId: string, body: object, cookie = h.cookie) =>
  request(h.app).post(`/api/flows/${flowId}/publish`).set("Cookie", cookie).send(body);
const detail = async (flowId: string) =>
  (await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie)).body;

/** What a production start of the flow says, and the version it ran. */
async function production(flowId: string) {
  const run = await h.runToEnd(flowId);
  expect(run.status, JSON.stringify(run)).toBe("success");
  return { said: (run.output as { said: string }).said, version: run.version };
}

const auditActions = (flowId: string) =>
  testPrisma()
    .auditEvent.findMany({ where: { objectId: flowId }, orderBy: [{ at: "asc" }, { id: "asc" }] })
    .then((rows) => rows.map((row) => [row.action, row.details]));
const flowEvents = (flowId: string) =>
  testPrisma()
    .event.findMany({ where: { workspaceId: h.workspaceId, type: "flow.updated" }, orderBy: { createdAt: "asc" } })
    .then((rows) =>
      rows.map((row) => (row.payload as { data: { workflow_id: string; version: number; changed: string[] } }).data),
    )
    .then((payloads) => payloads.filter((payload) => payload.workflow_id === flowId));

describe("drafts and publishing", () => {
  it("saves a draft production does not run, tests it, and publishes it", async () => {
    const flowId = await h.createFlow(saying("one"), "Drafted");
    const saved = await put(flowId, { version: 1, definition: saying("two"), publish: false, note: "try two" });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ version: 1, draft_version: 2 });
    expect(saved.body.definition).toEqual((await detail(flowId)).definition);
    expect(JSON.stringify(saved.body.definition)).toContain('"one"');
    // The draft is a version with its note; the list shows it too.
    const v2 = await request(h.app).get(`/api/flows/${flowId}/versions/2`).set("Cookie", h.cookie);
    expect(v2.body).toMatchObject({ version: 2, note: "try two" });
    expect(JSON.stringify(v2.body.definition)).toContain('"two"');
    const list = await request(h.app).get("/api/flows?q=Drafted").set("Cookie", h.cookie);
    expect(list.body.items).toEqual([expect.objectContaining({ id: flowId, version: 1, draft_version: 2 })]);

    // Production runs the published version; a test run without a definition runs the draft.
    expect(await production(flowId)).toEqual({ said: "one", version: 1 });
    const test = await request(h.app).post(`/api/flows/${flowId}/test-runs`).set("Cookie", h.cookie).send({});
    expect(test.status, JSON.stringify(test.body)).toBe(201);
    const tested = await h.waitForEnd(test.body.run_id);
    expect(tested).toMatchObject({ status: "success", test: true, version: 2, output: { said: "two" } });

    // Another draft save is made against the head (2): 1 is stale now.
    const stale = await put(flowId, { version: 1, definition: saying("three"), publish: false });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: "version_conflict", current_version: 2 });
    const third = await put(flowId, { version: 2, definition: saying("three"), publish: false });
    expect(third.body).toMatchObject({ version: 1, draft_version: 3 });
    // Saving the same draft again changes nothing.
    expect((await put(flowId, { version: 3, definition: saying("three"), publish: false })).body).toMatchObject({
      draft_version: 3,
    });

    // Drafts are audited, not announced.
    expect(await flowEvents(flowId)).toEqual([]);
    const published = await publish(flowId, { version: 3, published_version: 1 });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body).toMatchObject({ version: 3, draft_version: null });
    expect(JSON.stringify(published.body.definition)).toContain('"three"');
    expect(await production(flowId)).toEqual({ said: "three", version: 3 });
    expect(await flowEvents(flowId)).toEqual([expect.objectContaining({ version: 3, changed: ["definition"] })]);
    expect((await auditActions(flowId)).filter(([action]) => action !== "flow.created")).toEqual([
      ["flow.draft_saved", { name: "Drafted", version: 2, published_version: 1 }],
      ["flow.draft_saved", { name: "Drafted", version: 3, published_version: 1 }],
      ["flow.published", { name: "Drafted", version: 3, previous_version: 1 }],
    ]);
  });

  it("rolls back to an older version keeping the draft, and numbers new versions above all", async () => {
    const flowId = await h.createFlow(saying("one"), "Rolled back");
    expect((await put(flowId, { version: 1, definition: saying("two") })).body).toMatchObject({ version: 2 });
    expect((await put(flowId, { version: 2, definition: saying("draft"), publish: false })).body).toMatchObject({
      version: 2,
      draft_version: 3,
    });

    const back = await publish(flowId, { version: 1 });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({ version: 1, draft_version: 3 });
    expect(await production(flowId)).toEqual({ said: "one", version: 1 });
    // Publishing the published version again changes nothing.
    expect((await publish(flowId, { version: 1 })).body).toMatchObject({ version: 1, draft_version: 3 });

    // A change published at once supersedes the draft and takes the next number (4, not 2).
    const direct = await put(flowId, { version: 1, definition: saying("four") });
    expect(direct.body).toMatchObject({ version: 4, draft_version: null });
    expect(await production(flowId)).toEqual({ said: "four", version: 4 });
    const versions = await request(h.app).get(`/api/flows/${flowId}/versions`).set("Cookie", h.cookie);
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
  });

  it("refuses what cannot be published, and who may not", async () => {
    const flowId = await h.createFlow(saying("one"), "Guarded");
    await put(flowId, { version: 1, definition: saying("two"), publish: false });

    const unknown = await publish(flowId, { version: 9 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    const stale = await publish(flowId, { version: 2, published_version: 5 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: "version_conflict", current_version: 1 });
    for (const body of [{}, { version: "2" }, { version: 0 }, { version: 2 ** 31 }, { version: 2, extra: true }]) {
      const bad = await publish(flowId, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }

    // A viewer of the workspace reads the draft but may not publish; another workspace sees no flow.
    const { cookie: viewerCookie } = await joinWorkspace(h.app, h.cookie, await createTestUser("viewer"), "viewer");
    expect((await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", viewerCookie)).body.draft_version).toBe(2);
    expect((await publish(flowId, { version: 2 }, viewerCookie)).status).toBe(403);
    expect((await put(flowId, { version: 2, definition: saying("x"), publish: false }, viewerCookie)).status).toBe(403);
    const stranger = await createTestUser("draft-stranger");
    const { cookie: strangerCookie } = await login(h.app, stranger.email);
    expect((await publish(flowId, { version: 2 }, strangerCookie)).status).toBe(404);
    expect((await detail(flowId)).version).toBe(1);
  });

  it("a published draft naming a credential deleted since it was saved is refused with the node named", async () => {
    const created = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", h.cookie)
      .send({ name: "soon gone", type: "bearer", data: { token: "draft-secret-value" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = await h.createFlow(saying("one"), "Credential draft");
    const withCredential = flow(
      [
        {
          id: "call",
          type: "http_request",
          config: { url: "http://127.0.0.1:9/x", credential_id: created.body.id },
        },
      ],
      [["start", "call"]],
    );
    const saved = await put(flowId, { version: 1, definition: withCredential, publish: false });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // The draft uses the credential: deleting it needs force.
    const inUse = await request(h.app).delete(`/api/credentials/${created.body.id}`).set("Cookie", h.cookie);
    expect(inUse.status).toBe(409);
    expect(inUse.body).toMatchObject({ code: "credential_in_use", flows: [{ id: flowId, name: "Credential draft" }] });
    const forced = await request(h.app)
      .delete(`/api/credentials/${created.body.id}?force=true`)
      .set("Cookie", h.cookie);
    expect(forced.status).toBe(200);
    const refused = await publish(flowId, { version: 2 });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("nodes[1]");
    expect(JSON.stringify(refused.body)).not.toContain("draft-secret-value");
    expect(await detail(flowId)).toMatchObject({ version: 1, draft_version: 2 });
  });
});
