import request from "supertest";
import { describe, expect, it } from "vitest";
import { createTestUser, login, makeTestApps, TEST_PASSWORD } from "../../test/helpers/identity.js";
import { createOriginPolicy } from "./origins.js";

const ORIGINS = {
  DASHBOARD_ORIGIN: "https://dash.example.com",
  DEVELOPER_PORTAL_ORIGIN: "https://developers.example.com",
  PARENT_DOMAIN: "example.com",
};

const ALLOWED = [
  "https://dash.example.com",
  "https://developers.example.com",
  "https://status.example.com",
  "https://a.b.example.com",
];

const REFUSED = [
  "null",
  "http://dash.example.com",
  "http://status.example.com",
  "https://example.com",
  "https://evil-example.com",
  "https://example.com.evil.com",
  "https://dash.example.com.evil.com",
  "https://evilexample.com",
  "https://status.example.com:8443",
  "https://status.example.com.",
  "https://dash.example.com/",
  "https://user@status.example.com",
  "https://status.example.com@evil.com",
  "ftp://status.example.com",
  "https://xn--exmple-cua.com",
  "",
];

describe("origin policy", () => {
  const policy = createOriginPolicy(ORIGINS);
  it.each(ALLOWED)("allows %s", (origin) => expect(policy.isAllowed(origin)).toBe(true));
  it.each(REFUSED)("refuses %j", (origin) => expect(policy.isAllowed(origin)).toBe(false));

  it("allows nothing by default", () => {
    const none = createOriginPolicy({});
    expect(ALLOWED.some((origin) => none.isAllowed(origin))).toBe(false);
  });

  it("accepts an exactly configured http origin (local dashboards)", () => {
    expect(createOriginPolicy({ DASHBOARD_ORIGIN: "http://localhost:5173" }).isAllowed("http://localhost:5173")).toBe(
      true,
    );
  });

  it("takes the loopback spellings of one origin as one origin", () => {
    const local = createOriginPolicy({ DASHBOARD_ORIGIN: "http://localhost:5173" });
    for (const origin of ["http://127.0.0.1:5173", "http://[::1]:5173"]) expect(local.isAllowed(origin)).toBe(true);
    for (const origin of ["http://127.0.0.1:5174", "https://127.0.0.1:5173", "http://localhost"]) {
      expect(local.isAllowed(origin), origin).toBe(false);
    }
  });

  it("allows the service's own origin under both loopback spellings when it listens on loopback", () => {
    const own = createOriginPolicy({ HOST: "127.0.0.1", PORT: 3000 });
    expect(own.isAllowed("http://localhost:3000")).toBe(true);
    expect(own.isAllowed("http://127.0.0.1:3000")).toBe(true);
    expect(own.isAllowed("http://localhost:3001")).toBe(false);
    expect(createOriginPolicy({ HOST: "10.0.0.5", PORT: 3000 }).isAllowed("http://localhost:3000")).toBe(false);

    const none = createOriginPolicy({});
    expect(none.isSameOrigin("http://localhost:3000", "127.0.0.1:3000")).toBe(true);
    expect(none.isSameOrigin("http://127.0.0.1:3000", "localhost:3000")).toBe(true);
    expect(none.isSameOrigin("http://localhost:3001", "127.0.0.1:3000")).toBe(false);
    expect(none.isSameOrigin("http://evil.test:3000", "127.0.0.1:3000")).toBe(false);
    expect(none.isSameOrigin("http://localhost:3000", "api.example.com:3000")).toBe(false);
  });
});

describe("CORS on the API", () => {
  const appFor = makeTestApps();

  it.each(ALLOWED)("echoes %s with credentials on requests and preflights", async (origin) => {
    const { app } = appFor(ORIGINS);
    const res = await request(app).get("/api/auth/session").set("Origin", origin);
    expect(res.headers["access-control-allow-origin"]).toBe(origin);
    expect(res.headers["access-control-allow-credentials"]).toBe("true");
    expect(res.headers.vary).toMatch(/\bOrigin\b/);

    const preflight = await request(app)
      .options("/api/flows")
      .set("Origin", origin)
      .set("Access-Control-Request-Method", "PUT")
      .set("Access-Control-Request-Headers", "content-type");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(origin);
    expect(preflight.headers["access-control-allow-credentials"]).toBe("true");
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET, POST, PUT, DELETE, OPTIONS");
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Content-Type/);
  });

  it.each(REFUSED.filter(Boolean))("gives %s no CORS headers and refuses its preflight", async (origin) => {
    const { app } = appFor(ORIGINS);
    const res = await request(app).get("/api/auth/session").set("Origin", origin);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(res.headers.vary).toMatch(/\bOrigin\b/);

    const preflight = await request(app)
      .options("/api/auth/login")
      .set("Origin", origin)
      .set("Access-Control-Request-Method", "POST");
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect(preflight.body).toEqual({ error: "Origin not allowed", code: "cors_origin_refused" });
  });
});

describe("CSRF protection of state-changing requests", () => {
  const appFor = makeTestApps();
  const loginAs = (origin: Record<string, string>, email: string) =>
    request(appFor(ORIGINS).app).post("/api/auth/login").set(origin).send({ email, password: TEST_PASSWORD });

  it.each([
    ["a foreign Origin", { Origin: "https://evil.com" }],
    ["a look-alike Origin", { Origin: "https://evil-example.com" }],
    ["Origin null", { Origin: "null" }],
    ["a cross-site fetch without Origin", { "Sec-Fetch-Site": "cross-site" }],
    ["a same-site fetch without Origin", { "Sec-Fetch-Site": "same-site" }],
  ])("refuses %s with 403", async (_label, headers) => {
    const owner = await createTestUser("csrf");
    const res = await loginAs(headers, owner.email);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Cross-site request refused: origin not allowed", code: "csrf_refused" });
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it.each([
    ["the dashboard origin", { Origin: "https://dash.example.com" }],
    ["a subdomain of the parent domain", { Origin: "https://app.example.com" }],
    ["a same-origin fetch", { "Sec-Fetch-Site": "same-origin" }],
    ["a request from no browser page (no Origin, no Sec-Fetch-Site)", {}],
  ])("lets %s through", async (_label, headers) => {
    const owner = await createTestUser("csrf-ok");
    expect((await loginAs(headers, owner.email)).status).toBe(200);
  });

  it("lets a page of the API's own origin through", async () => {
    const { app } = appFor(ORIGINS);
    const owner = await createTestUser("same-origin");
    const res = await request(app)
      .post("/api/auth/login")
      .set("Host", "api.internal:3000")
      .set("Origin", "http://api.internal:3000")
      .send({ email: owner.email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
  });

  it("lets a page at the other loopback spelling of the API's own address through", async () => {
    const { app } = appFor({ ...ORIGINS, HOST: "127.0.0.1", PORT: "3000" });
    const owner = await createTestUser("loopback-origin");
    for (const [host, origin] of [
      ["127.0.0.1:3000", "http://localhost:3000"],
      ["localhost:3000", "http://127.0.0.1:3000"],
    ]) {
      const res = await request(app)
        .post("/api/auth/login")
        .set("Host", host!)
        .set("Origin", origin!)
        .send({ email: owner.email, password: TEST_PASSWORD });
      expect(res.status, `${origin} to ${host}`).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe(origin);
    }
    const other = await request(app)
      .post("/api/auth/login")
      .set("Host", "127.0.0.1:3000")
      .set("Origin", "http://localhost:3001")
      .send({ email: owner.email, password: TEST_PASSWORD });
    expect(other.status).toBe(403);
  });

  it("keeps a session alive when a foreign page tries to log it out", async () => {
    const { app } = appFor(ORIGINS);
    const owner = await createTestUser("csrf-logout");
    const { cookie } = await login(app, owner.email);
    const forged = await request(app)
      .delete("/api/auth/session")
      .set("Cookie", cookie)
      .set("Origin", "https://evil.com");
    expect(forged.status).toBe(403);
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
  });
});

describe("security headers", () => {
  const appFor = makeTestApps();
  it("are set on API responses", async () => {
    const res = await request(appFor().app).get("/api/auth/session");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
    expect(res.headers["content-security-policy"]).toBeDefined();
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});
