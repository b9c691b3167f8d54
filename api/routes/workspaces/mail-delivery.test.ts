// Links by mail (issue 47), through the API against a real SMTP server on loopback: with SMTP
// configured, invites, owner offers and password resets go to the link's own address and no answer
// holds a link; the links read from the received messages work; a send the server does not take
// answers 503 mail_unavailable and keeps no link; no answer, log line or other mailbox holds a token.
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { closeDeps, createDeps, type AppDeps } from "../../deps.js";
import { ConfigError } from "../../../lib/config.js";
import { createLogger } from "../../../lib/logger.js";
import { testConfig, testDeps, testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, sessionCookieOf, TEST_PASSWORD, uniqueEmail } from "../../../test/helpers/identity.js";
import { linkIn, startSmtpReceiver, type SmtpReceiver } from "../../../test/helpers/smtp-receiver.js";
import { testCertificates } from "../../../test/helpers/tls.js";

const DASHBOARD = "https://svc.example.com";
const SENDER = "svc <noreply@example.com>";
/** What a link's token looks like, wherever it might show. */
const ANY_TOKEN_PATH = /\/(?:invite|invites|reset-password|password-resets)\/[A-Za-z0-9_-]{43}/;

interface MailApp {
  app: Express;
  deps: AppDeps;
  /** Every log line the app wrote (JSON, level debug). */
  logs: string[];
}

function mailApp(settings: Record<string, string>): MailApp {
  const config = testConfig({ ...settings, MAIL_FROM: SENDER, DASHBOARD_ORIGIN: DASHBOARD, LOG_LEVEL: "debug" });
  const logs: string[] = [];
  const logger = createLogger(config, "mail-test", { write: (line: string) => logs.push(line) });
  const deps = createDeps(config, logger);
  return { app: createApp(deps), deps, logs };
}

/** A free loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("links by mail", () => {
  let receiver: SmtpReceiver;
  let mail: MailApp;
  let app: Express;
  /** Every answer of the API in these tests: status line, headers and body. */
  const answers: string[] = [];
  const opened: AppDeps[] = [];

  beforeAll(async () => {
    receiver = await startSmtpReceiver();
    mail = mailApp(receiver.settings);
    opened.push(mail.deps);
    app = mail.app;
  });

  afterAll(async () => {
    await Promise.all(opened.map(closeDeps));
    await receiver?.close();
  });

  /** Sends a request and keeps its answer for the leak check. */
  async function call(req: request.Test): Promise<request.Response> {
    const res = await req;
    answers.push(`${res.status} ${JSON.stringify(res.headers)} ${res.text}`);
    return res;
  }

  /** An invite by mail, and the token its message carries. */
  async function invite(cookie: string, email: string, role = "editor") {
    const res = await call(request(app).post("/api/workspace/members").set("Cookie", cookie).send({ email, role }));
    expect(res.status, res.text).toBe(201);
    return { res, token: linkIn(await receiver.next(email), DASHBOARD).token };
  }

  /** A user who joined the owner's workspace through a mailed invite (their own workspace gone). */
  async function memberOf(ownerCookie: string, role = "editor") {
    const member = await createTestUser("member");
    const { token } = await invite(ownerCookie, member.email, role);
    const joined = await call(request(app).post(`/api/invites/${token}/accept`).send({ password: TEST_PASSWORD }));
    expect(joined.status, joined.text).toBe(200);
    await testPrisma().workspace.delete({ where: { id: member.workspace.workspaceId } });
    return member;
  }

  it("mails an invite to the invitee alone; the answer holds no link; the mailed link joins", async () => {
    const owner = await createTestUser("acme");
    const cookie = (await login(app, owner.email)).cookie;
    const email = uniqueEmail("invitee");
    const res = await call(
      request(app).post("/api/workspace/members").set("Cookie", cookie).send({ email, role: "editor" }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      invite: expect.objectContaining({ email, role: "editor", status: "pending" }),
      delivery: "mail",
    });

    const message = await receiver.next(email);
    expect(message.rcptTo).toEqual([email]);
    expect(message.parsed.from?.value).toEqual([{ address: "noreply@example.com", name: "svc" }]);
    expect(message.parsed.to).toMatchObject({ value: [{ address: email }] });
    expect(message.parsed.cc).toBeUndefined();
    expect(message.parsed.subject).toBe(`Join the workspace "acme workspace"`);
    expect(message.parsed.text).toContain(`"acme name" invites you to join the workspace "acme workspace" as editor.`);
    const { url, token } = linkIn(message, DASHBOARD);
    expect(url).toBe(`${DASHBOARD}/invite/${token}`);

    const preview = await call(request(app).get(`/api/invites/${token}`));
    expect(preview.body).toMatchObject({ email, role: "editor", workspace: { name: "acme workspace" } });
    const joined = await call(
      request(app).post(`/api/invites/${token}/accept`).send({ name: "Invitee", password: "my-own-password" }),
    );
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body.workspace).toMatchObject({ workspaceId: owner.workspace.workspaceId, role: "editor" });
    expect(sessionCookieOf(joined)).toMatch(/^svc_session=/);
  });

  it("mails the owner offer to the member, who takes it with their password", async () => {
    const owner = await createTestUser("acme");
    const cookie = (await login(app, owner.email)).cookie;
    const member = await memberOf(cookie, "admin");
    const offered = await call(
      request(app).put(`/api/workspace/members/${member.user.id}`).set("Cookie", cookie).send({ role: "owner" }),
    );
    expect(offered.status, offered.text).toBe(202);
    expect(offered.body).toEqual({
      member: expect.objectContaining({ role: "admin" }),
      offer: { invite: expect.objectContaining({ email: member.email, role: "owner" }), delivery: "mail" },
    });
    const message = await receiver.next(member.email);
    expect(message.parsed.subject).toBe(`The owner role of "acme workspace" is offered to you`);
    const { token } = linkIn(message, DASHBOARD);
    const taken = await call(request(app).post(`/api/invites/${token}/accept`).send({ password: TEST_PASSWORD }));
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.workspace.role).toBe("owner");
  });

  it("mails a password reset link to the member's address, which sets the password", async () => {
    const owner = await createTestUser("acme");
    const cookie = (await login(app, owner.email)).cookie;
    const member = await memberOf(cookie);
    const issued = await call(
      request(app).post(`/api/workspace/members/${member.user.id}/password-reset`).set("Cookie", cookie),
    );
    expect(issued.status, issued.text).toBe(201);
    expect(issued.body).toEqual({ email: member.email, expires_at: expect.any(String), delivery: "mail" });
    const message = await receiver.next(member.email);
    expect(message.rcptTo).toEqual([member.email]);
    expect(message.parsed.subject).toBe("Set a new password");
    expect(message.parsed.text).toContain(`issued by "acme name"`);
    const { url, token } = linkIn(message, DASHBOARD);
    expect(url).toBe(`${DASHBOARD}/reset-password/${token}`);
    const set = await call(request(app).post(`/api/auth/password-resets/${token}`).send({ password: "a-new-one-1" }));
    expect([set.status, set.body]).toEqual([200, { ok: true, email: member.email }]);
    expect((await login(app, member.email, "a-new-one-1")).body.user.id).toBe(member.user.id);
  });

  it("answers 503 mail_unavailable when the server refuses, and keeps no link nobody received", async () => {
    const owner = await createTestUser("acme");
    const cookie = (await login(app, owner.email)).cookie;
    const workspaceId = owner.workspace.workspaceId;
    const member = await memberOf(cookie);
    const email = uniqueEmail("invitee");
    const first = await invite(cookie, email);
    const firstReset = await call(
      request(app).post(`/api/workspace/members/${member.user.id}/password-reset`).set("Cookie", cookie),
    );
    const resetToken = linkIn(await receiver.next(member.email), DASHBOARD).token;
    expect(firstReset.status).toBe(201);
    const invitesBefore = await testPrisma().invite.findMany({ where: { workspaceId }, select: { id: true } });
    const resetsBefore = await testPrisma().passwordReset.findMany({ where: { userId: member.user.id } });

    receiver.refuse(true);
    try {
      const mails = receiver.received.length;
      const attempts = [
        request(app).post("/api/workspace/members").set("Cookie", cookie).send({ email, role: "viewer" }),
        request(app).put(`/api/workspace/members/${member.user.id}`).set("Cookie", cookie).send({ role: "owner" }),
        request(app).post(`/api/workspace/members/${member.user.id}/password-reset`).set("Cookie", cookie),
      ];
      for (const attempt of attempts) {
        const res = await call(attempt);
        expect([res.status, res.body.code]).toEqual([503, "mail_unavailable"]);
        expect(res.body.error).toMatch(/mail server did not take the message/);
        expect(res.headers["retry-after"]).toBe("60");
      }
      expect(receiver.received.length).toBe(mails);
    } finally {
      receiver.refuse(false);
    }
    // Nothing new stands: the earlier invite and link are as they were, and still work.
    expect(await testPrisma().invite.findMany({ where: { workspaceId }, select: { id: true } })).toEqual(invitesBefore);
    expect(await testPrisma().passwordReset.findMany({ where: { userId: member.user.id } })).toEqual(resetsBefore);
    expect((await call(request(app).get(`/api/invites/${first.token}`))).status).toBe(200);
    expect((await call(request(app).get(`/api/auth/password-resets/${resetToken}`))).status).toBe(200);
    const role = await testPrisma().membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: member.user.id, workspaceId } },
    });
    expect(role.role).toBe("editor");
    // The failure is logged without the message or any link.
    const failures = mail.logs.filter((line) => line.includes('"mail not sent"'));
    expect(failures).toHaveLength(3);
    expect(JSON.parse(failures[0]!)).toMatchObject({ level: 40, response_code: 451, command: "DATA" });
  });

  it("answers 503 at once when the mail server is down, and keeps no invite", async () => {
    const down = mailApp({ ...receiver.settings, SMTP_PORT: String(await closedPort()) });
    opened.push(down.deps);
    const owner = await createTestUser("acme");
    const cookie = (await login(down.app, owner.email)).cookie;
    const email = uniqueEmail("invitee");
    const started = Date.now();
    const res = await request(down.app)
      .post("/api/workspace/members")
      .set("Cookie", cookie)
      .send({ email, role: "viewer" });
    expect([res.status, res.body.code]).toEqual([503, "mail_unavailable"]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await testPrisma().invite.count({ where: { email } })).toBe(0);
  });

  it("sends over STARTTLS with the server's CA and credentials, and refuses a certificate of another CA", async () => {
    const certificates = testCertificates();
    const authority = certificates.authority("smtp");
    const server = authority.issue("server");
    const tlsReceiver = await startSmtpReceiver({
      tls: { ...server, ca: authority.cert },
      account: { user: "svc-mailer", password: "smtp-secret-1" },
    });
    try {
      const secured = mailApp(tlsReceiver.settings);
      const strange = mailApp({ ...tlsReceiver.settings, SMTP_TLS_CA: certificates.authority("other").cert });
      opened.push(secured.deps, strange.deps);
      const owner = await createTestUser("acme");
      const email = uniqueEmail("invitee");
      const sent = await request(secured.app)
        .post("/api/workspace/members")
        .set("Cookie", (await login(secured.app, owner.email)).cookie)
        .send({ email, role: "viewer" });
      expect(sent.status, sent.text).toBe(201);
      const message = await tlsReceiver.next(email);
      expect([message.secure, message.user]).toEqual([true, "svc-mailer"]);

      const refused = await request(strange.app)
        .post("/api/workspace/members")
        .set("Cookie", (await login(strange.app, owner.email)).cookie)
        .send({ email: uniqueEmail("invitee"), role: "viewer" });
      expect([refused.status, refused.body.code]).toEqual([503, "mail_unavailable"]);
      expect(strange.logs.join("\n")).not.toContain("smtp-secret-1");
    } finally {
      await tlsReceiver.close();
      certificates.remove();
    }
  });

  it("shows no token in any answer, log line or other mailbox: each is in its own person's message only", async () => {
    // This test's own traffic besides what the tests above left.
    const owner = await createTestUser("acme");
    const cookie = (await login(app, owner.email)).cookie;
    const member = await memberOf(cookie);
    await call(request(app).post(`/api/workspace/members/${member.user.id}/password-reset`).set("Cookie", cookie));
    const reset = linkIn(await receiver.next(member.email), DASHBOARD).token;
    expect((await call(request(app).get(`/api/auth/password-resets/${reset}`))).status).toBe(200);

    const tokens = receiver.received.map((message) => ({ message, token: linkIn(message, DASHBOARD).token }));
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    for (const { message, token } of tokens) {
      expect(message.rcptTo).toHaveLength(1);
      expect(receiver.received.filter((other) => other.parsed.text?.includes(token))).toEqual([message]);
      expect(answers.filter((answer) => answer.includes(token))).toEqual([]);
      expect(mail.logs.filter((line) => line.includes(token))).toEqual([]);
    }
    expect(answers.filter((answer) => ANY_TOKEN_PATH.test(answer))).toEqual([]);
    expect(mail.logs.filter((line) => ANY_TOKEN_PATH.test(line))).toEqual([]);
    // The links' requests are logged, their tokens not.
    const paths = mail.logs.map((line) => (JSON.parse(line) as { path?: string }).path).filter(Boolean);
    expect(paths).toContain("/api/auth/password-resets/[token]");
    expect(paths).toContain("/api/invites/[token]/accept");
  });
});

describe("MAIL_REQUIRED", () => {
  it("refuses to build the API without a mail server: no link is ever handed over", () => {
    expect(() => createApp(testDeps({ MAIL_REQUIRED: "true" }))).toThrow(ConfigError);
    expect(() => createApp(testDeps({ MAIL_REQUIRED: "true" }))).toThrow(/SMTP_HOST: is required with MAIL_REQUIRED/);
  });

  it("stops the API process at its start with one line naming the setting", () => {
    const started = spawnSync(process.execPath, ["--import", "tsx", "api/server.ts"], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: "postgresql://svc:x@127.0.0.1:1/svc",
        MAIL_REQUIRED: "true",
        LOG_LEVEL: "silent",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr.trim()).toBe(
      "Invalid configuration: SMTP_HOST: is required with MAIL_REQUIRED=true (links go by mail only)",
    );
  });
});
