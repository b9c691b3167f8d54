// Operator and bracket syntax in query strings (`flow_id[$ne]=x`, `status[]=a`) on every route
// that takes query parameters, as the OpenAPI document lists them: a 400 naming the parameter,
// where the parameter used to be dropped and the list answered unfiltered.
import request from "supertest";
import type { Express } from "express";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser, login, makeTestApps } from "../../test/helpers/identity.js";
import { refuseOperatorSyntax } from "./query-syntax.js";

const appFor = makeTestApps();

interface Operation {
  method: "get" | "delete";
  path: string;
  query: string[];
}

describe("operator syntax in query strings", () => {
  let app: Express;
  let cookie: string;
  let operations: Operation[];
  beforeAll(async () => {
    app = appFor().app;
    ({ cookie } = await login(app, (await createTestUser("query-syntax")).email));
    const document = (await request(app).get("/api/openapi.json").set("Cookie", cookie)).body as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) => {
        const query = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
        return query.length > 0 ? [{ method: method as Operation["method"], path, query }] : [];
      }),
    );
  });

  it("answers 400 naming the parameter on every route with query parameters, before anything else", async () => {
    // The document lists them: the runs list and the other lists among them.
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(["get /api/runs", "get /api/flows", "get /api/logs", "get /api/settings/webhooks"]),
    );
    for (const operation of operations) {
      // Path parameters need not name anything: the query is refused before they are read.
      const path = operation.path.replace(/\{[^}]+\}/g, "x");
      for (const name of operation.query) {
        for (const spelling of [`${name}[$ne]=x`, `${name}[]=a`, `${name}[a]=b`, `${name}.$ne=x`, `$${name}=x`]) {
          const res = await request(app)[operation.method](`${path}?${spelling}`).set("Cookie", cookie);
          const what = `${operation.method} ${path}?${spelling}`;
          expect(res.status, what).toBe(400);
          expect(res.body, what).toMatchObject({ code: "validation_failed", error: expect.stringContaining(name) });
          expect(res.body.error, what).toContain(`give ${name}=<value>`);
        }
      }
    }
  });

  it("refuses the runs list's flow_id[$ne] instead of listing every run, and still takes plain filters", async () => {
    const unfiltered = await request(app)
      .get("/api/runs?flow_id[$ne]=wf_000000000000000000000000")
      .set("Cookie", cookie);
    expect(unfiltered.status).toBe(400);
    expect(unfiltered.body).toEqual({
      error: expect.stringMatching(/^Query parameter "flow_id\[\$ne\]": operators, brackets and dotted names/),
      code: "validation_failed",
      details: [{ path: "query.flow_id[$ne]", message: expect.any(String) }],
    });
    // Encoded brackets are the same parameter name.
    expect((await request(app).get("/api/runs?status%5B%5D=running").set("Cookie", cookie)).status).toBe(400);
    const filtered = await request(app)
      .get("/api/runs?flow_id=wf_000000000000000000000000&status=running")
      .set("Cookie", cookie);
    expect([filtered.status, filtered.body.items]).toEqual([200, []]);
    // A repeated parameter is no array either: the schema refuses it.
    expect((await request(app).get("/api/runs?status=running&status=failed").set("Cookie", cookie)).status).toBe(400);
  });

  it("leaves declared names and plain unknown ones alone", () => {
    const declared = new Set(["flow_id", "status"]);
    expect(() => refuseOperatorSyntax({ flow_id: "x", status: "running", _: "1700000000" }, declared)).not.toThrow();
    expect(() => refuseOperatorSyntax({ "flow_id[$ne]": "x" }, declared)).toThrow(/flow_id\[\$ne\]/);
    expect(() => refuseOperatorSyntax({ "other[x]": "y" }, declared)).toThrow(/give other=<value>/);
  });
});
