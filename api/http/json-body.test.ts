// The API's body parsing on the real app: JSON only (415), UTF-8 only (415 for another charset, 400
// for bytes that are not UTF-8), nested at most MAX_JSON_DEPTH.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../test/helpers/identity.js";
import { jsonDeeperThan, MAX_JSON_DEPTH } from "./json-body.js";

const appFor = makeTestApps();

/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const flowWith = (position: string) =>
  `{"name":"Deep","definition":{"nodes":[{"id":"start","type":"manual","position":${position}}],"edges":[]}}`;

describe("jsonDeeperThan", () => {
  it("counts the nesting of objects and arrays, not brackets inside strings", () => {
    expect(jsonDeeperThan("[[[1]]]", 3)).toBe(false);
    expect(jsonDeeperThan("[[[[1]]]]", 3)).toBe(true);
    expect(jsonDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDeeperThan(JSON.stringify({ text: "[[[[[{{{{{" }), 1)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still text.
    expect(jsonDeeperThan(JSON.stringify({ text: '\\" [[[[' }), 1)).toBe(false);
    expect(jsonDeeperThan(JSON.stringify(["a\\", [[1]]]), 2)).toBe(true);
    // Siblings do not add up.
    expect(jsonDeeperThan("[[1],[2],[3],[4]]", 2)).toBe(false);
  });
});

describe("request bodies of the API", () => {
  let app: Express;
  let cookie: string;
  let flowId: string;
  let workspaceId: string;

  beforeAll(async () => {
    app = appFor().app;
    const user = await createTestUser("bodies");
    cookie = (await login(app, user.email)).cookie;
    workspaceId = user.workspace.workspaceId;
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "Target", definition: { nodes: [{ id: "start", type: "manual" }], edges: [] } });
    expect(created.status).toBe(201);
    flowId = created.body.id;
  });

  it("refuses a body that is not JSON with 415 naming application/json", async () => {
    const body = JSON.stringify({ name: "x", definition: { nodes: [], edges: [] } });
    const plain = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "text/plain")
      .send(body);
    const untyped = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .unset("Content-Type")
      .send(Buffer.from(body));
    const form = await request(app)
      .post("/api/auth/login")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send("email=a%40example.com&password=x");
    for (const res of [plain, untyped, form]) {
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({
        code: "unsupported_media_type",
        error: expect.stringContaining("application/json"),
      });
    }
    expect(plain.body.error).toContain("got text/plain");
    expect(untyped.body.error).toContain("got no Content-Type");
  });

  it("refuses JSON in another charset than UTF-8 with 415, and takes +json types", async () => {
    const utf16 = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "application/json; charset=utf-16le")
      .send(Buffer.from(JSON.stringify({ name: "x" }), "utf16le"));
    expect([utf16.status, utf16.body.code]).toEqual([415, "unsupported_charset"]);
    const vendor = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "application/vnd.svc+json; charset=UTF-8")
      .send(
        JSON.stringify({ name: "Vendor type", definition: { nodes: [{ id: "start", type: "manual" }], edges: [] } }),
      );
    expect(vendor.status, JSON.stringify(vendor.body)).toBe(201);
  });

  it("takes requests without a body whatever their Content-Type, and answers a missing body with 400", async () => {
    const run = await request(app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", cookie)
      .set("Content-Type", "text/plain")
      .set("Content-Length", "0");
    expect(run.status).not.toBe(415);
    const empty = await request(app).post("/api/flows").set("Cookie", cookie).set("Content-Type", "application/json");
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: "validation_failed", error: expect.any(String) });
  });

  it("refuses bytes that are not UTF-8 with 400 invalid_utf8 on every JSON body route, storing nothing, and takes UTF-8", async () => {
    const where = { workspaceId };
    const [flows, runs] = [await testPrisma().flow.count({ where }), await testPrisma().run.count({ where })];
    // "café" in Latin-1, a lone continuation byte, a truncated sequence, an overlong "/" and a UTF-16 surrogate.
    const notUtf8 = [[0x63, 0x61, 0x66, 0xe9], [0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]];
    const bodyWith = (before: string, bytes: number[], after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
    const post = (path: string, body: Buffer, withSession = true) => {
      // As bytes: superagent would otherwise send a Buffer as JSON ({"type":"Buffer",…}).
      const req = request(app)
        .post(path)
        .set("Content-Type", "application/json")
        .serialize((bytes) => bytes);
      return (withSession ? req.set("Cookie", cookie) : req).send(body);
    };
    for (const bytes of notUtf8) {
      const answers = [
        await post("/api/flows", bodyWith('{"name":"', bytes, '","definition":{"nodes":[],"edges":[]}}')),
        await post(`/api/workflows/${flowId}/run`, bodyWith('{"input":{"note":"', bytes, '"}}')),
        await post("/api/auth/login", bodyWith('{"email":"a@example.com","password":"', bytes, '"}'), false),
        // Parsed before the token is looked up: mounted apart from the API's other routes.
        await post("/api/waits/resume/wt_unknown", bodyWith('{"k":"', bytes, '"}'), false),
      ];
      for (const [i, res] of answers.entries()) {
        expect(res.status, `answer ${i} to ${bytes}`).toBe(400);
        expect(res.body).toEqual({
          error: "The request body is not valid UTF-8 (JSON bodies must be UTF-8)",
          code: "invalid_utf8",
        });
      }
    }
    expect(await testPrisma().flow.count({ where })).toBe(flows);
    expect(await testPrisma().run.count({ where })).toBe(runs);

    const utf8 = await post(
      "/api/flows",
      Buffer.from(
        JSON.stringify({ name: "Café ☕ 😀", definition: { nodes: [{ id: "start", type: "manual" }], edges: [] } }),
      ),
    );
    expect([utf8.status, utf8.body.name]).toEqual([201, "Café ☕ 😀"]);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400 naming the limit, and stores nothing`, async () => {
    const where = { workspaceId };
    const [flows, runs] = [await testPrisma().flow.count({ where }), await testPrisma().run.count({ where })];
    const deepDefinition = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "application/json")
      .send(`{"name":"Deep","definition":${nestedObjects(1000)}}`);
    const deepInput = await request(app)
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", cookie)
      .set("Content-Type", "application/json")
      .send(`{"input":${"[".repeat(5000)}1${"]".repeat(5000)}}`);
    for (const res of [deepDefinition, deepInput]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "json_too_deep", max_depth: MAX_JSON_DEPTH });
      expect(res.body.error).toContain(`${MAX_JSON_DEPTH} levels`);
    }
    expect(await testPrisma().flow.count({ where })).toBe(flows);
    expect(await testPrisma().run.count({ where })).toBe(runs);
  });

  it(`stores and returns JSON nested exactly ${MAX_JSON_DEPTH} levels deep`, async () => {
    // The body, its definition, nodes, the node and its position: 5 levels around the nested part.
    const atLimit = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "application/json")
      .send(flowWith(nestedObjects(MAX_JSON_DEPTH - 4)));
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(201);
    const read = await request(app).get(`/api/flows/${atLimit.body.id}`).set("Cookie", cookie);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body.definition.nodes[0].position)).toBe(nestedObjects(MAX_JSON_DEPTH - 4));

    const overLimit = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .set("Content-Type", "application/json")
      .send(flowWith(nestedObjects(MAX_JSON_DEPTH - 3)));
    expect([overLimit.status, overLimit.body.code]).toEqual([400, "json_too_deep"]);
  });
});
