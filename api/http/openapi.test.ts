import express, { type Express } from "express";
import { pino } from "pino";
import request from "supertest";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { makeTestApps } from "../../test/helpers/identity.js";
import { authorize } from "./authenticate.middleware.js";
import type { AuthContext } from "../../core/sessions/sessions.service.js";
import { updateFlowSchema } from "../routes/flows/flows.schema.js";
import { createErrorHandler } from "./error-handler.js";
import { createApiDocs, documentedRouter } from "./openapi.js";

const appFor = makeTestApps();

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route registered on the app, as method and router-relative path. */
function registeredRoutes(app: Express): Array<{ method: string; path: string }> {
  const found: Array<{ method: string; path: string }> = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) found.push({ method, path: layer.route.path });
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

const toOpenApi = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, "{$1}").replace(/\/$/, "");

describe("OpenAPI document", () => {
  it("describes every route the app serves, and nothing it does not", async () => {
    const { app } = appFor();
    const { body: document } = await request(app).get("/api/openapi.json");
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => ({ method, path })),
    );
    const routes = registeredRoutes(app);
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const match = documented.some((doc) => doc.method === route.method && doc.path.endsWith(toOpenApi(route.path)));
      expect(match, `${route.method.toUpperCase()} ${route.path} has no schema in the OpenAPI document`).toBe(true);
    }
    expect(documented.length).toBeGreaterThanOrEqual(routes.length);
  });

  it("is OpenAPI 3.1 generated from the zod schemas that validate requests", async () => {
    const { app } = appFor();
    const { body: document, status } = await request(app).get("/api/openapi.json");
    expect(status).toBe(200);
    expect(document.openapi).toBe("3.1.0");
    const put = document.paths["/api/flows/{id}"].put;
    const { $schema: _ignored, ...expected } = z.toJSONSchema(updateFlowSchema, {
      io: "input",
      unrepresentable: "any",
    });
    expect(put.requestBody.content["application/json"].schema).toEqual(expected);
    expect(put.parameters).toContainEqual(expect.objectContaining({ name: "id", in: "path", required: true }));
    expect(put.responses["409"].content["application/json"].schema.required).toEqual(["error", "code"]);
    // One path per resource: the flows at /api/flows, the run endpoint at the interface's path only.
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/api/workflows"))).toEqual([
      "/api/workflows/{id}/run",
    ]);
    expect(document.paths["/api/flows/{id}/run"]).toBeUndefined();
    expect(document.paths["/api/auth/login"].post.security).toEqual([]);
    expect(document.paths["/api/flows"].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      "status",
      "q",
      "tag",
      "limit",
      "cursor",
    ]);
    const runsList = document.paths["/api/runs"].get;
    expect(runsList.parameters.map((p: { name: string }) => p.name)).toEqual([
      "flow_id",
      "id",
      "status",
      "trigger",
      "test",
      "started_after",
      "started_before",
      "limit",
      "cursor",
    ]);
    const parameter = (name: string) => runsList.parameters.find((p: { name: string }) => p.name === name);
    expect(parameter("trigger").schema.enum).toEqual(expect.arrayContaining(["schedule", "cli", "replay", "test"]));
    // A draft's test run: a body of its own (definition, input, pinned outputs, the node to run to),
    // never a path under /api/workflows.
    const testRuns = document.paths["/api/flows/{id}/test-runs"].post;
    expect(Object.keys(testRuns.requestBody.content["application/json"].schema.properties)).toEqual([
      "definition",
      "input",
      "pins",
      "until",
    ]);
    expect(Object.keys(testRuns.responses)).toEqual(expect.arrayContaining(["201", "403", "404", "409", "429"]));
    expect(parameter("started_after").schema).toMatchObject({ type: "string", format: "date-time" });
    // Named schemas (`.meta({ id })`) are components, which the dashboard's generated types name.
    const component = (ref: { $ref: string }) => {
      expect(ref.$ref).toMatch(/^#\/components\/schemas\//);
      return document.components.schemas[ref.$ref.split("/").at(-1)!];
    };
    const steps = component(
      document.paths["/api/runs/{id}/steps"].get.responses["200"].content["application/json"].schema,
    );
    const stepItem = component(steps.properties.items.items);
    expect(Object.keys(stepItem.properties)).toEqual(expect.arrayContaining(["input", "input_unavailable", "output"]));
    const flowItem = component(
      document.paths["/api/flows"].get.responses["200"].content["application/json"].schema.properties.items.items,
    );
    expect(Object.keys(flowItem.properties)).toEqual([
      "id",
      "name",
      "status",
      "version",
      "updated_at",
      "tags",
      "draft_version",
      "last_run",
    ]);
    expect(Object.keys(document.components.schemas)).toEqual(Object.keys(document.components.schemas).sort());
    expect(JSON.stringify(document)).not.toContain("#/$defs/");
  });

  it("names a schema's parts as components, and refuses two different schemas of one name", () => {
    const docs = createApiDocs();
    const part = z.object({ id: z.string() }).meta({ id: "Part" });
    docs.add("/api", "t", {
      method: "get",
      path: "/a",
      scope: "read",
      summary: "A",
      responses: { 200: { description: "A", schema: z.object({ part: part, parts: z.array(part) }) } },
    });
    const document = docs.document({ title: "t", version: "1" });
    expect(document.components.schemas).toEqual({
      Part: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
    });
    const { properties } = JSON.parse(JSON.stringify(document)).paths["/api/a"].get.responses["200"].content[
      "application/json"
    ].schema;
    expect(properties).toEqual({
      part: { $ref: "#/components/schemas/Part" },
      parts: { type: "array", items: { $ref: "#/components/schemas/Part" } },
    });

    const other = createApiDocs();
    other.add("/api", "t", {
      method: "get",
      path: "/a",
      scope: "read",
      summary: "A",
      responses: { 200: { description: "A", schema: part } },
    });
    other.add("/api", "t", {
      method: "get",
      path: "/b",
      scope: "read",
      summary: "B",
      responses: { 200: { description: "B", schema: z.object({ n: z.number() }).meta({ id: "Part" }) } },
    });
    expect(() => other.document({ title: "t", version: "1" })).toThrow(/Two different schemas are named Part/);

    // A request's schema is inlined: an answer's named schema has another input form.
    const request = createApiDocs();
    request.add("/api", "t", {
      method: "post",
      path: "/a",
      scope: "write",
      summary: "A",
      body: part,
      responses: { 200: "A" },
    });
    expect(() => request.document({ title: "t", version: "1" })).toThrow(
      /A request schema holds named schemas \(Part\)/,
    );
  });

  it("serves an interactive reference at /docs from this server's own assets, within the CSP", async () => {
    const { app } = appFor({});
    const page = await request(app).get("/docs/");
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="swagger-ui"');
    // No inline scripts: every script is a file of this origin.
    const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes).toMatch(/src="\.\/[\w.-]+\.js"/);
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
    const init = await request(app).get("/docs/swagger-ui-init.js");
    expect(init.text).toContain("/api/openapi.json");
    const bundle = await request(app).get("/docs/swagger-ui-bundle.js");
    expect([bundle.status, bundle.headers["content-type"]]).toEqual([200, expect.stringMatching(/javascript/)]);
  });
});

describe("route()", () => {
  const itemParams = z.object({ id: z.string().regex(/^it_\d+$/, "must be an item id") });
  const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(20), tag: z.string().optional() });
  const itemBody = z.strictObject({ name: z.string().min(1), count: z.number().int().default(1) });
  const sessionAs = (role: AuthContext["workspace"]["role"]): AuthContext => ({
    kind: "member",
    sessionId: "ses_1",
    user: { id: "usr_1", email: "ada@example.com", name: "Ada" },
    workspace: { workspaceId: "ws_1", name: "Lab", role },
  });

  /** Routes whose handlers never parse: whatever they see, route() parsed. */
  function itemsApp(session?: AuthContext) {
    const { router, route } = documentedRouter(createApiDocs(), "/items", "items");
    route(
      { method: "get", path: "/", scope: "read", summary: "List", query: listQuery, responses: { 200: "Items" } },
      (req, res) => {
        expectTypeOf(req.input.query).toEqualTypeOf<{ limit: number; tag?: string | undefined }>();
        res.json({ query: req.input.query, workspaceId: req.input.workspaceId });
      },
    );
    route(
      {
        method: "put",
        path: "/:id",
        scope: "session",
        summary: "Replace",
        params: itemParams,
        body: itemBody,
        responses: { 200: "Item" },
      },
      authorize("flows:write"),
      (req, res) => {
        expectTypeOf(req.input.body).toEqualTypeOf<{ name: string; count: number }>();
        res.json({ params: req.input.params, body: req.input.body, user: req.input.auth.user.id });
      },
    );
    route(
      {
        method: "get",
        path: "/shared/:id",
        summary: "Public",
        public: true,
        params: itemParams,
        responses: { 200: "Item" },
      },
      (req, res) => {
        // @ts-expect-error a public route has no session
        expect(req.input.workspaceId).toBeUndefined();
        res.json(req.input.params);
      },
    );
    route(
      {
        method: "post",
        path: "/:id/touch",
        scope: "write",
        summary: "Touch",
        params: itemParams,
        body: z.strictObject({ note: z.string().default("touched") }),
        absentBodyIsEmpty: true,
        responses: { 200: "Touched" },
      },
      (req, res) => {
        res.json(req.input.body);
      },
    );
    const app = express();
    app.use(express.json());
    app.use((req, _res, next) => {
      req.auth = session;
      next();
    });
    app.use("/items", router);
    app.use(createErrorHandler(pino({ level: "silent" })));
    return app;
  }

  it("hands the handler the parsed values: coerced, with defaults, and the session's workspace", async () => {
    const app = itemsApp(sessionAs("editor"));

    const listed = await request(app).get("/items?limit=5&tag=red");
    const defaults = await request(app).get("/items");
    const replaced = await request(app).put("/items/it_7").send({ name: "bolt" });

    expect(listed.body).toEqual({ query: { limit: 5, tag: "red" }, workspaceId: "ws_1" });
    expect(defaults.body).toEqual({ query: { limit: 20 }, workspaceId: "ws_1" });
    expect(replaced.body).toEqual({ params: { id: "it_7" }, body: { name: "bolt", count: 1 }, user: "usr_1" });
  });

  it("answers 400 validation_failed for bad params, query or body before the handler runs", async () => {
    const app = itemsApp(sessionAs("editor"));

    const badQuery = await request(app).get("/items?limit=500");
    const badParams = await request(app).put("/items/nope").send({ name: "bolt" });
    const badBody = await request(app).put("/items/it_7").send({ name: "", extra: true });

    for (const res of [badQuery, badParams, badBody]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "Invalid request", code: "validation_failed" });
    }
    expect(badQuery.body.details.map((d: { path: string }) => d.path)).toEqual(["limit"]);
    expect(badParams.body.details).toEqual([{ path: "id", message: "must be an item id" }]);
    expect(badBody.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["", "name"]);
  });

  it("reads an absent body as {} only on routes that declare absentBodyIsEmpty", async () => {
    const app = itemsApp(sessionAs("editor"));

    const touched = await request(app).post("/items/it_7/touch");
    const replaced = await request(app).put("/items/it_7");

    expect([touched.status, touched.body]).toEqual([200, { note: "touched" }]);
    expect([replaced.status, replaced.body.details.map((d: { path: string }) => d.path)]).toEqual([400, [""]]);
  });

  it("refuses without a session (401) or with too low a role (403) before looking at the input", async () => {
    const anonymous = await request(itemsApp()).get("/items?limit=500");
    const viewer = await request(itemsApp(sessionAs("viewer")))
      .put("/items/nope")
      .send({});
    const shared = await request(itemsApp()).get("/items/shared/it_3");

    expect([anonymous.status, anonymous.body.code]).toEqual([401, "unauthorized"]);
    expect([viewer.status, viewer.body.code]).toEqual([403, "forbidden"]);
    expect([shared.status, shared.body]).toEqual([200, { id: "it_3" }]);
  });
});
