import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { freePort } from "../../../lib/infra/process.js";
import { testDeps } from "../../../test/helpers/context.js";
import { createApp } from "../../app.js";
import { closeDeps, type AppDeps } from "../../deps.js";

describe("health endpoints", () => {
  const opened: AppDeps[] = [];
  const appWith = (overrides: Record<string, string> = {}) => {
    const deps = testDeps(overrides);
    opened.push(deps);
    return createApp(deps);
  };
  afterAll(async () => {
    await Promise.all(opened.map(closeDeps));
  });

  it("GET /healthz answers while the process lives", async () => {
    const res = await request(appWith()).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("GET /readyz is 200 when the database and Temporal answer", async () => {
    const res = await request(appWith()).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { database: "ok", temporal: "ok" } });
  });

  it("GET /readyz is 503 naming Temporal when it does not answer", async () => {
    const res = await request(appWith({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` })).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("not_ready");
    expect(res.body.error).toBe("Not ready: temporal unavailable");
    expect(res.body.checks.database).toBe("ok");
    expect(res.body.checks.temporal).toMatch(/^down: /);
  });

  it("GET /readyz is 503 naming the database when it does not answer", async () => {
    const url = new URL(inject("databaseUrl"));
    url.port = String(await freePort());
    const res = await request(appWith({ DATABASE_URL: url.toString() })).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("Not ready: database unavailable");
    expect(res.body.checks).toMatchObject({ temporal: "ok", database: expect.stringMatching(/^down: /) });
  });

  it("sets security headers and hides the framework", async () => {
    const res = await request(appWith()).get("/healthz");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});
