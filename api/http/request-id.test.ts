import { Writable } from "node:stream";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../lib/logger.js";
import { makeTestApps } from "../../test/helpers/identity.js";
import { createErrorHandler } from "./error-handler.js";
import { createRequestId } from "./request-id.js";

const appFor = makeTestApps();

/** A logger whose lines land in an array. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ LOG_LEVEL: "info" }, "test", sink), lines };
}

describe("request ids", () => {
  it("tags every log line written while a request is handled, services and errors included, and echoes the id", async () => {
    const { logger, lines } = capturedLogger();
    const app = express();
    app.use(createRequestId(logger));
    app.get("/work", async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.info({ apiKey: "sk-secret-value" }, "service did something");
      res.json({ ok: true });
    });
    app.get("/boom", async () => {
      await Promise.resolve();
      throw new Error("kaput");
    });
    app.post("/api/hooks/:token", (_req, res) => {
      res.status(202).end();
    });
    app.use(createErrorHandler(logger));

    const given = await request(app).get("/work").set("X-Request-Id", "req-abc.123");
    expect(given.headers["x-request-id"]).toBe("req-abc.123");
    const generated = await request(app).get("/work").set("X-Request-Id", "bad id with spaces");
    expect(generated.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await request(app).get("/boom");
    expect(failed.status).toBe(500);
    await request(app).post("/api/hooks/hk_secret_token_value").send({});
    await new Promise((resolve) => setTimeout(resolve, 20));

    const of = (id: string) => lines.filter((line) => line.request_id === id);
    expect(of("req-abc.123").map((line) => line.msg)).toEqual(["service did something", "request"]);
    expect(of("req-abc.123")[0]!.apiKey).toBe("[redacted]");
    expect(of("req-abc.123")[1]).toMatchObject({ method: "GET", path: "/work", status: 200 });
    expect(of(generated.headers["x-request-id"]!).map((line) => line.msg)).toEqual([
      "service did something",
      "request",
    ]);
    const boom = of(failed.headers["x-request-id"]!);
    expect(boom.map((line) => line.msg)).toEqual(["unhandled error", "request"]);
    expect(lines.every((line) => line.request_id !== undefined)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain("hk_secret_token_value");
    expect(JSON.stringify(lines)).not.toContain("sk-secret-value");
  });

  it("logs the tokens of hooks, invites and reset links under routers of their own as [token]", async () => {
    const { logger, lines } = capturedLogger();
    const app = express();
    app.use(createRequestId(logger));
    const mounted = () => express.Router().all("/:token{/:action}", (_req, res) => void res.status(202).end());
    for (const base of ["/api/hooks", "/api/invites", "/api/auth/password-resets"]) app.use(base, mounted());
    app.get(["/invite/:token", "/reset-password/:token"], (_req, res) => void res.send("page"));

    const token = "x".repeat(43);
    for (const path of [
      `/api/hooks/${token}`,
      `/api/invites/${token}/accept?next=1`,
      `/api/auth/password-resets/${token}`,
      `/invite/${token}`,
      `/reset-password/${token}`,
    ]) {
      await request(app).post(path).send({});
      await request(app).get(path);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(new Set(lines.map((line) => line.path))).toEqual(
      new Set([
        "/api/hooks/[token]",
        "/api/invites/[token]/accept",
        "/api/auth/password-resets/[token]",
        "/invite/[token]",
        "/reset-password/[token]",
      ]),
    );
  });

  it("answers with X-Request-Id on the real app, errors included", async () => {
    const { app } = appFor({});
    const health = await request(app).get("/healthz");
    expect(health.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await request(app).get("/api/nope").set("X-Request-Id", "trace-42");
    expect([missing.status, missing.headers["x-request-id"]]).toEqual([401, "trace-42"]);
  });
});
