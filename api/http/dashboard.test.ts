import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { closeDeps } from "../deps.js";
import { testDeps } from "../../test/helpers/context.js";
import { createTestUser, login } from "../../test/helpers/identity.js";

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/main-abc.js"></script></head></html>';

const BIG = `export const rows = ${JSON.stringify(Array.from({ length: 400 }, (_, n) => ({ n, label: `row ${n}` })))};`;

function fakeBuild(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-dashboard-"));
  mkdirSync(path.join(dir, "assets"));
  writeFileSync(path.join(dir, "index.html"), INDEX);
  writeFileSync(path.join(dir, "assets", "main-abc.js"), "console.log('dashboard')");
  // What web/precompress.ts leaves beside a larger asset.
  writeFileSync(path.join(dir, "assets", "big-abc.js"), BIG);
  writeFileSync(path.join(dir, "assets", "big-abc.js.br"), brotliCompressSync(BIG));
  writeFileSync(path.join(dir, "assets", "big-abc.js.gz"), gzipSync(BIG));
  writeFileSync(path.join(dir, "outside.js"), BIG);
  writeFileSync(path.join(dir, "outside.js.br"), brotliCompressSync(BIG));
  return dir;
}

describe("the dashboard served by the API", () => {
  const built = fakeBuild();
  const missing = path.join(built, "no-such-build");
  const deps = testDeps();
  const app = createApp({ ...deps, dashboardDir: built });
  const bare = createApp({ ...deps, dashboardDir: missing });
  afterAll(async () => {
    rmSync(built, { recursive: true, force: true });
    await closeDeps(deps);
  });

  it("answers / and client-side routes with index.html, under a CSP that allows only its own scripts", async () => {
    for (const page of ["/", "/flows/wf_0123456789abcdef01234567", "/runs"]) {
      const res = await request(app).get(page).set("Accept", "text/html");
      expect(res.status, page).toBe(200);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      expect(res.text).toBe(INDEX);
      expect(res.headers["cache-control"]).toBe("no-cache");
      const csp = res.headers["content-security-policy"] as string;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
  });

  it("serves hashed assets with a long cache", async () => {
    const res = await request(app).get("/assets/main-abc.js");
    expect(res.status).toBe(200);
    expect(res.text).toContain("dashboard");
    expect(res.headers["cache-control"]).toMatch(/max-age=31536000.*immutable/);
    const gone = await request(app).get("/assets/main-old.js");
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe("not_found");
  });

  it("serves an asset's brotli or gzip copy to a browser that takes it, the file itself to one that does not", async () => {
    const raw = (encoding: string) =>
      request(app)
        .get("/assets/big-abc.js")
        .set("Accept-Encoding", encoding)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => done(null, Buffer.concat(chunks)));
        });
    const br = await raw("gzip, deflate, br, zstd");
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(br.headers["vary"]).toMatch(/Accept-Encoding/);
    expect(br.headers["cache-control"]).toMatch(/max-age=31536000.*immutable/);
    expect(Number(br.headers["content-length"])).toBeLessThan(BIG.length / 3);
    // (supertest opens the copy as a browser would.)
    expect((br.body as Buffer).toString()).toBe(BIG);

    const gzip = await raw("gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(Number(gzip.headers["content-length"])).toBeLessThan(BIG.length / 3);
    expect((gzip.body as Buffer).toString()).toBe(BIG);

    for (const plain of [await raw("identity"), await raw("br;q=0, gzip;q=0")]) {
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers["content-type"]).toMatch(/javascript/);
      expect((plain.body as Buffer).toString()).toBe(BIG);
    }
    // A file with no copies is served as it is; a path that climbs gets no copy.
    expect((await raw("br")).headers["content-encoding"]).toBe("br");
    expect(
      (await request(app).get("/assets/main-abc.js").set("Accept-Encoding", "br")).headers["content-encoding"],
    ).toBeUndefined();
    const outside = await request(app).get("/assets/..%2foutside.js").set("Accept-Encoding", "br");
    expect(outside.headers["content-encoding"]).toBeUndefined();
  });

  it("leaves the API's paths alone: JSON 404 for unknown /api paths, health and docs as before", async () => {
    const user = await createTestUser("dashboard");
    const { cookie } = await login(app, user.email);
    const unknown = await request(app).get("/api/no-such-thing").set("Cookie", cookie).set("Accept", "text/html");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "No route for GET /api/no-such-thing", code: "not_found" });
    const health = await request(app).get("/healthz").set("Accept", "text/html");
    expect(health.body).toEqual({ status: "ok" });
    const flows = await request(app).get("/api/flows").set("Cookie", cookie);
    expect(flows.status).toBe(200);
    expect(flows.body.items).toEqual([]);
    const docs = await request(app).get("/docs/").set("Accept", "text/html");
    expect(docs.text).toContain("swagger");
  });

  it("answers a non-HTML request for a page with the JSON 404, and writes with 404", async () => {
    expect((await request(app).get("/flows").set("Accept", "application/json")).status).toBe(404);
    expect((await request(app).post("/flows").send({})).status).toBe(404);
  });

  it("without a build, / says how to make one and other paths keep their 404", async () => {
    const root = await request(bare).get("/").set("Accept", "text/html");
    expect(root.status).toBe(503);
    expect(root.body.code).toBe("dashboard_not_built");
    expect(root.body.error).toContain("npm run web:build");
    expect((await request(bare).get("/flows")).status).toBe(404);
  });
});
