import type { Express } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeTestApps } from "../../test/helpers/identity.js";
import { updateFlowSchema } from "../routes/flows/flows.schema.js";

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
    expect(document.paths["/api/workflows/{id}"].get).toBeDefined();
    expect(document.paths["/api/auth/login"].post.security).toEqual([]);
    expect(document.paths["/api/flows"].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      "status",
      "limit",
      "cursor",
    ]);
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
