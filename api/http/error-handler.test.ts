import express from "express";
import { pino } from "pino";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testPrisma } from "../../test/helpers/context.js";
import { SealedJsonUnreadable } from "../../lib/crypto/sealed-json.js";
import { DomainError } from "../../core/errors.js";
import { RateLimited } from "../../core/rate-limiter.js";
import { createErrorHandler, notFoundHandler } from "./error-handler.js";
import { HttpError, conflict } from "./errors.js";

function appThrowing(error: unknown) {
  const app = express();
  app.use(express.json({ limit: "1kb" }));
  app.post("/echo", (req, res) => {
    res.json(req.body);
  });
  app.get("/boom", () => {
    throw error;
  });
  app.get("/items/:id", (req, res) => {
    res.json({ id: req.params.id });
  });
  app.use(notFoundHandler);
  app.use(createErrorHandler(pino({ level: "silent" })));
  return app;
}

describe("error handler", () => {
  it("maps an HttpError to its status, code, extra fields and headers", async () => {
    const error = new HttpError(429, "rate_limited", "Slow down", { retry_after: 3 }, { "Retry-After": "3" });
    const res = await request(appThrowing(error)).get("/boom");
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("3");
    expect(res.body).toEqual({ error: "Slow down", code: "rate_limited", retry_after: 3 });
  });

  it("maps a rate limit's refusal to 429 with Retry-After, and a payload that does not open to 422", async () => {
    const limited = await request(appThrowing(new RateLimited("Too many login attempts", 7))).get("/boom");
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("7");
    expect(limited.body).toEqual({ error: "Too many login attempts", code: "rate_limited", retry_after: 7 });
    const undecodable = new DomainError(
      "unprocessable",
      "payload_undecodable",
      "Unsupported state or unable to authenticate data",
    );
    const res = await request(appThrowing(undecodable)).get("/boom");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: "Unsupported state or unable to authenticate data",
      code: "payload_undecodable",
    });
  });

  it("answers a stored payload this server's key cannot open with 503 payload_unreadable, not a 500", async () => {
    const res = await request(
      appThrowing(new SealedJsonUnreadable('The value is sealed under key "k1", which SVC_ENCRYPTION_KEY lacks')),
    ).get("/boom");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error:
        'This server cannot read a stored run payload: The value is sealed under key "k1", which SVC_ENCRYPTION_KEY lacks',
      code: "payload_unreadable",
    });
  });

  it("maps a ZodError to 400 with a path per problem", async () => {
    const parsed = z.object({ name: z.string(), age: z.number() }).safeParse({ age: "x" });
    const res = await request(appThrowing(parsed.error)).get("/boom");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["age", "name"]);
  });

  it("answers malformed JSON with 400 and oversized bodies with 413", async () => {
    const app = appThrowing(undefined);
    const malformed = await request(app).post("/echo").set("Content-Type", "application/json").send("{nope");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: "Request body is not valid JSON", code: "invalid_json" });
    const large = await request(app)
      .post("/echo")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ data: "x".repeat(2048) }));
    expect(large.status).toBe(413);
    expect(large.body.code).toBe("payload_too_large");
  });

  it("answers a body that does not decompress as its Content-Encoding says with 400", async () => {
    const app = appThrowing(undefined);
    for (const encoding of ["gzip", "deflate", "br"]) {
      const res = await request(app)
        .post("/echo")
        .set("Content-Type", "application/json")
        .set("Content-Encoding", encoding)
        .send("not compressed");
      expect(res.status, encoding).toBe(400);
      expect(res.body, encoding).toEqual({
        error: "Request body does not decode as its Content-Encoding says",
        code: "invalid_content_encoding",
      });
    }
    const unknown = await request(app)
      .post("/echo")
      .set("Content-Type", "application/json")
      .set("Content-Encoding", "zstd")
      .send("{}");
    expect([unknown.status, unknown.body.code]).toEqual([415, "unsupported_encoding"]);
  });

  it("answers a path parameter that does not decode with 400 invalid_path", async () => {
    const app = appThrowing(undefined);
    expect((await request(app).get("/items/%C3%A9")).body).toEqual({ id: "é" });
    const res = await request(app).get("/items/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "The path is not valid percent-encoded UTF-8", code: "invalid_path" });
  });

  it("maps Prisma's unique and not-found errors to 409 and 404", async () => {
    expect((await request(appThrowing({ code: "P2002" })).get("/boom")).status).toBe(409);
    expect((await request(appThrowing({ code: "P2025" })).get("/boom")).status).toBe(404);
    expect((await request(appThrowing(conflict("stale"))).get("/boom")).body).toEqual({
      error: "stale",
      code: "conflict",
    });
  });

  it("answers 503 when the database is down or a transaction ran out of time, never 500", async () => {
    // A real transaction that outlives its time limit, as under heavy load.
    const expired = await testPrisma()
      .$transaction(
        async (tx) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.user.count();
        },
        { timeout: 100 },
      )
      .catch((error: unknown) => error);
    expect(expired).toMatchObject({ code: "P2028" });
    const busy = await request(appThrowing(expired)).get("/boom");
    expect(busy.status).toBe(503);
    expect(busy.headers["retry-after"]).toBe("1");
    expect(busy.body).toMatchObject({ code: "database_busy" });

    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const down = await request(appThrowing(new Error("query failed", { cause: refused }))).get("/boom");
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      error: "The database is unavailable; try again shortly",
      code: "database_unavailable",
    });
  });

  it("hides unexpected errors behind a 500 without internals", async () => {
    const res = await request(appThrowing(new Error("secret database detail"))).get("/boom");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error", code: "internal" });
    expect(res.text).not.toContain("secret");
  });

  it("answers unknown routes with 404 and the standard body", async () => {
    const res = await request(appThrowing(undefined)).get("/nowhere");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "No route for GET /nowhere", code: "not_found" });
  });
});
