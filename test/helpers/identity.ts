// Users, logged-in sessions and apps for API tests.
import { randomUUID } from "node:crypto";
import type { Express } from "express";
import request from "supertest";
import { afterAll, expect } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps, type AppDeps } from "../../api/deps.js";
import { newUserSchema } from "../../core/users/users.schema.js";
import { createUserWithWorkspace } from "../../core/users/users.service.js";
import type { Clock } from "../../lib/clock.js";
import { testDeps, testPrisma } from "./context.js";

export const TEST_PASSWORD = "correct-horse-battery";

export const uniqueEmail = (label = "user") => `${label}-${randomUUID()}@example.com`;

/** A user with its own workspace (owner), hashed at the tests' iteration count. */
export async function createTestUser(label = "user", password = TEST_PASSWORD) {
  const email = uniqueEmail(label);
  const input = newUserSchema.parse({ email, password, name: `${label} name`, workspace: `${label} workspace` });
  const created = await createUserWithWorkspace(testPrisma(), input, { iterations: 100_000 });
  return { email, password, ...created };
}

/**
 * An app over the test database and Temporal server; its clients are closed after the file.
 * Call at the top of a describe block or inside tests.
 */
export function makeTestApps() {
  const opened: AppDeps[] = [];
  afterAll(async () => {
    await Promise.all(opened.map(closeDeps));
  });
  return (overrides: Record<string, string> = {}, clock?: Clock): { app: Express; deps: AppDeps } => {
    const deps = testDeps(overrides, clock);
    opened.push(deps);
    return { app: createApp(deps), deps };
  };
}

/** The `svc_session=<token>` pair of a response's Set-Cookie header. */
export function sessionCookieOf(res: request.Response): string {
  const header = ([] as string[]).concat(res.headers["set-cookie"] ?? []).find((c) => c.startsWith("svc_session="));
  expect(header, "response sets svc_session").toBeDefined();
  return header!.split(";")[0]!;
}

/** Logs in through the API; returns the cookie to send with later requests. */
export async function login(app: Express, email: string, password = TEST_PASSWORD, body: object = {}) {
  const res = await request(app)
    .post("/api/auth/login")
    .send({ email, password, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { cookie: sessionCookieOf(res), body: res.body };
}

/** The token of an invite or reset link's path (`/invite/<token>`, `/reset-password/<token>`). */
export const linkToken = (path: string) => path.split("/").at(-1)!;

/**
 * Joins a user to the inviter's workspace the only way the API allows: an invite, accepted with the
 * user's password. Returns the session the acceptance opened (in that workspace).
 */
export async function joinWorkspace(
  app: Express,
  inviterCookie: string,
  member: { email: string; password?: string },
  role: "viewer" | "editor" | "admin" | "owner",
) {
  const invited = await request(app)
    .post("/api/workspace/members")
    .set("Cookie", inviterCookie)
    .send({ email: member.email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const accepted = await request(app)
    .post(`/api/invites/${linkToken(invited.body.accept_url as string)}/accept`)
    .send({ password: member.password ?? TEST_PASSWORD });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return { cookie: sessionCookieOf(accepted), body: accepted.body };
}
