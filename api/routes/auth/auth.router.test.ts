import { pbkdf2Sync, randomBytes } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../../lib/clock.js";
import { newId } from "../../../lib/ids.js";
import { testPrisma } from "../../../test/helpers/context.js";
import {
  TEST_PASSWORD,
  createTestUser,
  login,
  makeTestApps,
  sessionCookieOf,
  uniqueEmail,
} from "../../../test/helpers/identity.js";
import { purgeExpired } from "../../../core/maintenance.js";
import { hashSessionToken } from "../../../core/sessions/sessions.service.js";

const appFor = makeTestApps();
const DAY = 86_400_000;

describe("POST /api/auth/login", () => {
  it("answers the spec's shape and sets the session cookie with exactly the spec's attributes", async () => {
    const { app } = appFor();
    const owner = await createTestUser("login");

    const res = await request(app).post("/api/auth/login").send({ email: owner.email, password: TEST_PASSWORD });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      authenticated: true,
      user: { id: owner.user.id, email: owner.email, name: "login name" },
      workspace: { workspaceId: owner.workspace.workspaceId, name: "login workspace", role: "owner" },
    });
    const cookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = cookies[0]!.split("; ");
    expect(pair).toMatch(/^svc_session=[A-Za-z0-9_-]{43}$/); // 256 random bits
    expect(attributes).toEqual(["HttpOnly", "Secure", "SameSite=None", "Path=/", "Max-Age=604800"]);
  });

  it("answers an unknown e-mail and a wrong password alike, in body and in time", async () => {
    // Its seven failures per account stay below the delays of login throttling.
    const { app } = appFor({ LOGIN_FREE_FAILURES: "10" });
    const owner = await createTestUser("alike");
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth/login`;
    const attempt = async (email: string) => {
      const started = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: "wrong-password" }),
      });
      return {
        status: res.status,
        body: await res.json(),
        cookie: res.headers.get("set-cookie"),
        ms: performance.now() - started,
      };
    };
    try {
      const wrong: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 7; i++) {
        for (const [email, times] of [
          [owner.email, wrong],
          [uniqueEmail("nobody"), unknown],
        ] as const) {
          const res = await attempt(email);
          expect(res.status).toBe(401);
          expect(res.body).toEqual({ error: "Invalid email or password", code: "invalid_credentials" });
          expect(res.cookie).toBeNull();
          times.push(res.ms);
        }
      }
      // Without the dummy hash an unknown e-mail answers in a small fraction (under a tenth) of a
      // wrong password's time; the bound leaves room for a loaded machine's noise.
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[3]!;
      expect(median(unknown) / median(wrong)).toBeGreaterThan(0.35);
    } finally {
      server.close();
    }
  });

  it("gives a new token at every login, even when the browser sends an old one", async () => {
    const { app } = appFor();
    const owner = await createTestUser("fixation");
    const first = await login(app, owner.email);
    const res = await request(app)
      .post("/api/auth/login")
      .set("Cookie", first.cookie)
      .send({ email: owner.email, password: TEST_PASSWORD });
    const second = sessionCookieOf(res);
    expect(second).not.toBe(first.cookie);
    // Both devices stay logged in.
    for (const cookie of [first.cookie, second]) {
      expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
    }
  });

  it("stores only a hash of the token", async () => {
    const { app } = appFor();
    const owner = await createTestUser("hashed");
    const { cookie } = await login(app, owner.email);
    const token = cookie.split("=")[1]!;
    const sessions = await testPrisma().session.findMany({ where: { userId: owner.user.id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.tokenHash).toBe(hashSessionToken(token));
    expect(JSON.stringify(sessions)).not.toContain(token);
  });

  it("accepts a legacy 100,000-iteration hash and upgrades it to the configured count", async () => {
    const { app } = appFor({ PASSWORD_HASH_ITERATIONS: "150000" });
    const owner = await createTestUser("legacy");
    const salt = randomBytes(16);
    const legacy = `pbkdf2_sha256$100000$${salt.toString("base64")}$${pbkdf2Sync(TEST_PASSWORD, salt, 100_000, 32, "sha256").toString("base64")}`;
    await testPrisma().user.update({ where: { id: owner.user.id }, data: { passwordHash: legacy } });

    await login(app, owner.email);

    await expect
      .poll(async () => (await testPrisma().user.findUniqueOrThrow({ where: { id: owner.user.id } })).passwordHash)
      .toMatch(/^pbkdf2_sha256\$150000\$/);
    await login(app, owner.email);
  });

  it("opens the requested workspace, and refuses one the user is not a member of", async () => {
    const { app } = appFor();
    const owner = await createTestUser("multi");
    const stranger = await createTestUser("stranger");
    const second = newId("ws");
    await testPrisma().workspace.create({ data: { id: second, name: "Second" } });
    await testPrisma().membership.create({ data: { userId: owner.user.id, workspaceId: second, role: "viewer" } });

    const { body } = await login(app, owner.email, TEST_PASSWORD, { workspaceId: second });
    expect(body.workspace).toEqual({ workspaceId: second, name: "Second", role: "viewer" });

    const refused = await request(app)
      .post("/api/auth/login")
      .send({ email: owner.email, password: TEST_PASSWORD, workspaceId: stranger.workspace.workspaceId });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
  });

  it.each([
    ["a body that is not JSON", "application/json", "{email:", 400, "invalid_json"],
    ["a plain-text body", "text/plain", "email=a@b.c", 415, "unsupported_media_type"],
    ["wrong types", "application/json", JSON.stringify({ email: 42, password: ["x"] }), 400, "validation_failed"],
    ["missing fields", "application/json", JSON.stringify({}), 400, "validation_failed"],
    [
      "a 2,000-character password",
      "application/json",
      JSON.stringify({ email: "a@example.com", password: "p".repeat(2000) }),
      400,
      "validation_failed",
    ],
    [
      "a 1 MB password",
      "application/json",
      JSON.stringify({ email: "a@example.com", password: "p".repeat(1024 * 1024) }),
      413,
      "payload_too_large",
    ],
  ])("refuses %s with %i and {error, code}", async (_label, type, body, status, code) => {
    const { app } = appFor();
    const res = await request(app).post("/api/auth/login").set("Content-Type", type).send(body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: expect.any(String), code });
  });
});

describe("GET and DELETE /api/auth/session", () => {
  it("reports a valid session, and 401 {authenticated: false} without one", async () => {
    const { app } = appFor();
    const owner = await createTestUser("session");
    const { cookie, body } = await login(app, owner.email);

    const valid = await request(app).get("/api/auth/session").set("Cookie", cookie);
    expect(valid.status).toBe(200);
    expect(valid.body).toEqual(body);

    for (const sent of [undefined, "svc_session=not-a-real-token", `svc_session=${"A".repeat(43)}`]) {
      const req = request(app).get("/api/auth/session");
      const res = sent ? await req.set("Cookie", sent) : await req;
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ authenticated: false });
    }
  });

  it("logs out: deletes the session and clears the cookie with the same attributes", async () => {
    const { app } = appFor();
    const owner = await createTestUser("logout");
    const { cookie } = await login(app, owner.email);

    const res = await request(app).delete("/api/auth/session").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers["set-cookie"]).toEqual(["svc_session=; HttpOnly; Secure; SameSite=None; Path=/; Max-Age=0"]);
    expect(await testPrisma().session.count({ where: { userId: owner.user.id } })).toBe(0);
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(401);
  });

  it("ends a session 7 days after login however active it is, and purges it", async () => {
    const clock = manualClock(new Date("2031-01-01T00:00:00Z"));
    const { app, deps } = appFor({ SESSION_IDLE_TIMEOUT: "7d" }, clock);
    const owner = await createTestUser("lifetime");
    const { cookie } = await login(app, owner.email);

    for (let day = 1; day <= 6; day++) {
      clock.advance(DAY);
      expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
    }
    clock.advance(DAY); // 7 days after login
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(401);
    expect(await testPrisma().session.count({ where: { userId: owner.user.id } })).toBe(0);

    const again = await login(app, owner.email);
    clock.advance(8 * DAY);
    expect((await purgeExpired(deps)).sessions).toBeGreaterThanOrEqual(1);
    expect(await testPrisma().session.count({ where: { userId: owner.user.id } })).toBe(0);
    expect((await request(app).get("/api/auth/session").set("Cookie", again.cookie)).status).toBe(401);
  });

  it("ends a session left idle longer than the idle timeout", async () => {
    const clock = manualClock(new Date("2032-01-01T00:00:00Z"));
    const { app } = appFor({ SESSION_IDLE_TIMEOUT: "1h" }, clock);
    const owner = await createTestUser("idle");
    const { cookie } = await login(app, owner.email);

    clock.advance(50 * 60_000);
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
    clock.advance(50 * 60_000); // 100 minutes after login, 50 after the last request
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
    clock.advance(61 * 60_000);
    expect((await request(app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(401);
  });
});

describe("PUT /api/auth/password", () => {
  it("checks the current password, ends every other session and keeps the caller logged in", async () => {
    const { app } = appFor();
    const owner = await createTestUser("password");
    const laptop = await login(app, owner.email);
    const phone = await login(app, owner.email);

    const wrong = await request(app)
      .put("/api/auth/password")
      .set("Cookie", laptop.cookie)
      .send({ current_password: "not-it", new_password: "a-brand-new-password" });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("invalid_current_password");

    const changed = await request(app)
      .put("/api/auth/password")
      .set("Cookie", laptop.cookie)
      .send({ current_password: TEST_PASSWORD, new_password: "a-brand-new-password" });
    expect(changed.status).toBe(200);
    const fresh = sessionCookieOf(changed);

    for (const old of [laptop.cookie, phone.cookie]) {
      expect((await request(app).get("/api/auth/session").set("Cookie", old)).status).toBe(401);
    }
    expect((await request(app).get("/api/auth/session").set("Cookie", fresh)).status).toBe(200);
    expect(
      (await request(app).post("/api/auth/login").send({ email: owner.email, password: TEST_PASSWORD })).status,
    ).toBe(401);
    await login(app, owner.email, "a-brand-new-password");
  });

  it("needs a session", async () => {
    const { app } = appFor();
    const res = await request(app).put("/api/auth/password").send({ current_password: "a", new_password: "bbbbbbbb" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required: log in first", code: "unauthorized" });
  });
});

describe("login throttling", () => {
  /** A random address of a documentation range, so that test runs and files do not share sources. */
  const address = (range: "198.51.100" | "203.0.113" | "192.0.2") => `${range}.${Math.floor(Math.random() * 250) + 1}`;

  /** An app behind a trusted proxy (X-Forwarded-For picks the source) on a clock of the test's own. */
  function throttledApp(config: Record<string, string>) {
    const clock = manualClock(new Date("2033-01-01T00:00:00Z"));
    const { app, deps } = appFor({ TRUSTED_PROXIES: "loopback", ...config }, clock);
    const attempt = (from: string, email: string, password: string) =>
      request(app).post("/api/auth/login").set("X-Forwarded-For", from).send({ email, password });
    return { app, deps, clock, attempt };
  }

  it("slows an attacker's source down on an account, while the owner logs in from their own source", async () => {
    const { attempt, clock } = throttledApp({ LOGIN_FREE_FAILURES: "3" });
    const owner = await createTestUser("attacked");
    const [attacker, home] = [address("198.51.100"), address("203.0.113")];

    // Twelve wrong guesses (more than the account lockout this replaced allowed), each sent as
    // soon as the attacker's delay allows it.
    let checked = 0;
    for (let sent = 0; checked < 12 && sent < 40; sent++) {
      const res = await attempt(attacker, owner.email, `guess-${checked}`);
      if (res.status === 401) checked++;
      else {
        expect(res.status).toBe(429);
        clock.advance(Number(res.headers["retry-after"]) * 1000);
      }
    }
    expect(checked).toBe(12);
    // Throttled before any password is checked: even the right one waits.
    for (const password of ["guess-12", TEST_PASSWORD]) {
      const throttled = await attempt(attacker, owner.email, password);
      expect(throttled.status).toBe(429);
      // The twelfth failure, the ninth past the three free ones: 2^8 s.
      expect(throttled.headers["retry-after"]).toBe("256");
      expect(throttled.body).toEqual({
        error: "Too many failed logins for this account from your address; try again in 256 s",
        code: "login_throttled",
        retry_after: 256,
      });
    }

    // The owner, from their own source, is not held up, nor by a typo of their own.
    expect((await attempt(home, owner.email, "a-typo")).status).toBe(401);
    const ownLogin = await attempt(home, owner.email, TEST_PASSWORD);
    expect(ownLogin.status).toBe(200);
    expect(sessionCookieOf(ownLogin)).toMatch(/^svc_session=/);
    // The attacker still waits: the owner's success clears the owner's pair only.
    expect((await attempt(attacker, owner.email, "guess-5")).status).toBe(429);
  });

  it("doubles the delay with each further failure, up to LOGIN_MAX_DELAY, and answers 429 until it passes", async () => {
    const { attempt, clock } = throttledApp({ LOGIN_FREE_FAILURES: "2", LOGIN_MAX_DELAY: "10s" });
    const owner = await createTestUser("doubling");
    const from = address("198.51.100");
    expect((await attempt(from, owner.email, "wrong-1")).status).toBe(401);
    expect((await attempt(from, owner.email, "wrong-2")).status).toBe(401);

    const delays: number[] = [];
    for (let failure = 3; failure <= 8; failure++) {
      expect((await attempt(from, owner.email, `wrong-${failure}`)).status).toBe(401);
      const throttled = await attempt(from, owner.email, "wrong-while-waiting");
      expect(throttled.status).toBe(429);
      const seconds = Number(throttled.headers["retry-after"]);
      delays.push(seconds);
      // A second short of the delay: still waiting (the refused attempt did not extend it).
      clock.advance((seconds - 1) * 1000);
      if (seconds > 1) expect((await attempt(from, owner.email, "too-early")).status).toBe(429);
      clock.advance(1000);
    }
    expect(delays).toEqual([1, 2, 4, 8, 10, 10]);
  });

  it("forgets a pair's failures at a successful login, and a day after its last failure", async () => {
    const { attempt, clock, deps } = throttledApp({ LOGIN_FREE_FAILURES: "2" });
    const owner = await createTestUser("forgiven");
    const from = address("198.51.100");
    const failThrice = async () => {
      for (let i = 0; i < 3; i++) expect((await attempt(from, owner.email, `wrong-${i}`)).status).toBe(401);
      const throttled = await attempt(from, owner.email, "wrong-again");
      expect(throttled.status).toBe(429);
      return Number(throttled.headers["retry-after"]);
    };

    expect(await failThrice()).toBe(1);
    clock.advance(1000);
    expect((await attempt(from, owner.email, TEST_PASSWORD)).status).toBe(200);
    // Counted from zero again: two free failures, then the first delay (not the second).
    expect(await failThrice()).toBe(1);

    clock.advance(86_400_000 + 1000);
    expect((await purgeExpired(deps)).loginThrottles).toBeGreaterThanOrEqual(1);
    expect(await testPrisma().loginThrottle.count({ where: { account: owner.email } })).toBe(0);
    expect(await failThrice()).toBe(1);
  });

  it("lets no parallel attempts slip past a delay", async () => {
    const { attempt } = throttledApp({ LOGIN_FREE_FAILURES: "2" });
    const owner = await createTestUser("parallel");
    const from = address("198.51.100");
    const statuses = (
      await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(from, owner.email, `wrong-${i}`)))
    ).map((res) => res.status);
    // Two free failures and the one that earned the first delay were checked; the rest waited.
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
  });

  it("throttles wrong current passwords of a password change the same way", async () => {
    const { app, attempt } = throttledApp({ LOGIN_FREE_FAILURES: "1" });
    const owner = await createTestUser("changer");
    const from = address("192.0.2");
    const cookie = sessionCookieOf(await attempt(from, owner.email, TEST_PASSWORD));
    const change = (current: string) =>
      request(app)
        .put("/api/auth/password")
        .set("X-Forwarded-For", from)
        .set("Cookie", cookie)
        .send({ current_password: current, new_password: "a-new-password-1" });
    expect((await change("wrong-1")).status).toBe(403);
    expect((await change("wrong-2")).status).toBe(403);
    const throttled = await change(TEST_PASSWORD);
    expect([throttled.status, throttled.body.code]).toEqual([429, "login_throttled"]);
  });

  it("limits attempts per client address, trusting X-Forwarded-For only behind a configured proxy", async () => {
    const { app } = appFor({ TRUSTED_PROXIES: "loopback", LOGIN_MAX_ATTEMPTS_PER_IP: "3" });
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const attempt = () =>
      request(app)
        .post("/api/auth/login")
        .set("X-Forwarded-For", address)
        .send({ email: uniqueEmail("spray"), password: "whatever-pass" });

    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toMatch(/^\d+$/);

    // Without a trusted proxy the header is ignored: the attempt counts against the socket address.
    const { app: direct } = appFor();
    const spoofed = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const res = await request(direct)
      .post("/api/auth/login")
      .set("X-Forwarded-For", spoofed)
      .send({ email: uniqueEmail("direct"), password: "whatever-pass" });
    expect(res.status).toBe(401);
    expect(await testPrisma().rateLimitBucket.count({ where: { key: `login:ip:${spoofed}` } })).toBe(0);
  });
});
