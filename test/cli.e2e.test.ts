// The operator CLI (npm run svc -- …) as a separate process against the test database and
// Temporal dev server, with a worker running the flows it starts.
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId } from "../lib/ids.js";
import { deliveryHeaders, generateWebhookSecret } from "../core/webhooks/signing.js";
import proto from "@temporalio/proto";
import { connectTemporalClient } from "../lib/temporal/connection.js";
import { TEST_ENCRYPTION_KEY, testConfig, testPrisma } from "./helpers/context.js";
import request from "supertest";
import { createTestUser, linkToken, login, makeTestApps } from "./helpers/identity.js";
import { cleanEnv, runEntry } from "./helpers/processes.js";
import { linkIn, startSmtpReceiver } from "./helpers/smtp-receiver.js";
import { startTestWorker } from "./helpers/runs.js";

const taskQueue = `cli-${randomUUID()}`;
const env = cleanEnv({
  DATABASE_URL: inject("databaseUrl"),
  TEMPORAL_ADDRESS: inject("temporalAddress"),
  TEMPORAL_TASK_QUEUE: taskQueue,
  TEMPORAL_UI_URL: "http://127.0.0.1:8233",
  PASSWORD_HASH_ITERATIONS: "100000",
  // The worker's key (startTestWorker): the runs svc starts carry their input sealed.
  SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
});
const svc = (...args: string[]) => runEntry("scripts/svc.ts", args, env);
const DASHBOARD = "https://svc.example.com";
const appFor = makeTestApps();

let worker: Awaited<ReturnType<typeof startTestWorker>>;
let workspaceId: string;
let flowId: string;
beforeAll(async () => {
  worker = await startTestWorker({ taskQueue });
  const user = await createTestUser("cli");
  workspaceId = user.workspace.workspaceId;
  flowId = newId("wf");
  const definition = {
    nodes: [
      { id: "start", type: "manual", config: {} },
      { id: "say", type: "log", config: { level: "info", message: "hello {{ input.name }}" } },
      { id: "after", type: "debug", config: {} },
    ],
    edges: [
      { from: "start", to: "say" },
      { from: "say", to: "after" },
    ],
  };
  await testPrisma().flow.create({
    data: {
      id: flowId,
      workspaceId,
      name: "CLI flow",
      status: "active",
      version: 1,
      definition,
      hookToken: `hk_${randomUUID()}`,
      createdAt: new Date(),
      updatedAt: new Date(),
    },
  });
  await testPrisma().flowVersion.create({ data: { flowId, version: 1, definition, createdAt: new Date() } });
}, 60_000);
afterAll(async () => {
  await worker?.stop();
});

describe("npm run svc", () => {
  it("creates a user, and refuses bad arguments with exit code 2", async () => {
    const email = `cli-${randomUUID()}@example.com`;
    const created = await svc(
      "users",
      "create",
      "--email",
      email,
      "--password",
      "long-enough-pw",
      "--name",
      "Ops",
      "--workspace",
      "Ops",
    );
    expect(created.code, created.output).toBe(0);
    expect(JSON.parse(created.output.slice(created.output.indexOf("{")))).toMatchObject({ user: { email } });
    expect(await testPrisma().user.count({ where: { email } })).toBe(1);
    const bad = await svc("users", "create", "--email", "not-an-email");
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/--email/);
    const unknown = await svc("frobnicate");
    expect([unknown.code, unknown.output.includes("usage: npm run svc")]).toEqual([2, true]);
  }, 60_000);

  it("issues a password reset link for any account, which sets a new password once", async () => {
    const { app } = appFor();
    const user = await createTestUser("reset-me", "someone-else-chose");
    // An account the migration marked: only a reset link opens it again.
    await testPrisma().user.update({ where: { id: user.user.id }, data: { passwordResetRequired: true } });
    const issued = await svc("users", "reset-link", "--email", user.email.toUpperCase());
    expect(issued.code, issued.output).toBe(0);
    const link = JSON.parse(issued.output.slice(issued.output.indexOf("{"))) as { reset_url: string };
    expect(link).toEqual({
      email: user.email,
      reset_url: expect.stringMatching(/^\/reset-password\/[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
      delivery: "link",
    });
    const set = await request(app)
      .post(`/api/auth/password-resets/${linkToken(link.reset_url)}`)
      .send({ password: "now-my-own-pw" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await login(app, user.email, "now-my-own-pw")).body.user.id).toBe(user.user.id);

    const unknown = await svc("users", "reset-link", "--email", `nobody-${randomUUID()}@example.com`);
    expect([unknown.code, /No account has the e-mail/.test(unknown.output)]).toEqual([1, true]);
    const bad = await svc("users", "reset-link", "--email", "not-an-email");
    expect([bad.code, /--email/.test(bad.output)]).toEqual([2, true]);
  }, 60_000);

  it("mails the operator's reset link to the account's address when a mail server is set, and prints no link", async () => {
    const { app } = appFor();
    const receiver = await startSmtpReceiver();
    try {
      const user = await createTestUser("mail-me");
      const mailEnv = { ...env, ...receiver.settings, MAIL_FROM: "svc <ops@example.com>", DASHBOARD_ORIGIN: DASHBOARD };
      const issued = await runEntry("scripts/svc.ts", ["users", "reset-link", "--email", user.email], mailEnv);
      expect(issued.code, issued.output).toBe(0);
      expect(JSON.parse(issued.output.slice(issued.output.indexOf("{"), issued.output.lastIndexOf("}") + 1))).toEqual({
        email: user.email,
        expires_at: expect.any(String),
        delivery: "mail",
      });
      expect(issued.output).toContain(`sent to ${user.email}`);
      const message = await receiver.next(user.email);
      expect(message.parsed.text).toContain("issued by the operator of this service");
      const { token } = linkIn(message, DASHBOARD);
      expect(issued.output).not.toContain(token);
      const set = await request(app).post(`/api/auth/password-resets/${token}`).send({ password: "mailed-to-me" });
      expect(set.status, JSON.stringify(set.body)).toBe(200);

      // The mail server refusing: nothing printed to use, and the earlier link is gone only by use.
      receiver.refuse(true);
      const refused = await runEntry("scripts/svc.ts", ["users", "reset-link", "--email", user.email], mailEnv);
      expect([refused.code, /mail server did not take the message/.test(refused.output)]).toEqual([1, true]);
      expect(await testPrisma().passwordReset.count({ where: { userId: user.user.id, usedAt: null } })).toBe(0);
    } finally {
      receiver.refuse(false);
      await receiver.close();
    }
  }, 60_000);

  it("starts a run and follows its steps live to the end, then lists it, links it and tails its logs", async () => {
    const listed = await svc("flows", "list", "--workspace", workspaceId);
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(new RegExp(`${flowId}\\s+CLI flow\\s+active\\s+1`));

    const started = await svc("runs", "start", flowId, "--input", '{"name":"Ada"}', "--follow");
    expect(started.code, started.output).toBe(0);
    const runId = /started (run_[0-9a-f]{24})/.exec(started.output)![1]!;
    expect(started.output).toMatch(/✓ say \(log\) attempt 1 success/);
    expect(started.output).toMatch(/✓ after \(debug\) attempt 1 success/);
    expect(started.output).toMatch(/\[#{20}\] 3\/3 nodes/);
    expect(started.output).toMatch(/run success in \d+ ms/);
    expect((await testPrisma().run.findUniqueOrThrow({ where: { id: runId } })).trigger).toBe("cli");

    const runs = await svc("runs", "list", "--flow", flowId, "--json");
    expect(JSON.parse(runs.output.slice(runs.output.indexOf("[")))).toEqual([
      expect.objectContaining({ id: runId, status: "success", trigger: "cli" }),
    ]);
    const link = await svc("runs", "link", runId);
    expect(link.output.trim().split("\n").at(-1)).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/${runId}`);
    const logs = await svc("logs", "tail", "--run", runId);
    expect(logs.output).toMatch(new RegExp(`INFO  ${runId}/say hello Ada`));

    const missing = await svc("runs", "follow", "run_000000000000000000000000");
    expect(missing.code).toBe(2);
    const badInput = await svc("runs", "start", flowId, "--input", "{oops");
    expect([badInput.code, /not valid JSON/.test(badInput.output)]).toEqual([2, true]);
  }, 90_000);

  it("verifies webhook signatures of both schemes", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "svc-cli-"));
    const body = JSON.stringify({ event: "run.completed", data: { run_id: "run_1" } });
    const bodyFile = path.join(dir, "body.json");
    writeFileSync(bodyFile, body);
    const secret = generateWebhookSecret();
    const headers = deliveryHeaders({
      event: "run.completed",
      deliveryId: "whd_1",
      body,
      secrets: [secret],
      now: new Date(),
    });
    const svcValid = await svc(
      "webhooks",
      "verify",
      "--secret",
      secret,
      "--body-file",
      bodyFile,
      "--signature",
      headers["X-SVC-Signature"]!,
    );
    expect([svcValid.code, svcValid.output.trim()]).toEqual([0, "valid"]);
    const standard = await svc(
      "webhooks",
      "verify",
      "--secret",
      secret,
      "--body-file",
      bodyFile,
      "--id",
      headers["webhook-id"]!,
      "--timestamp",
      headers["webhook-timestamp"]!,
      "--standard",
      headers["webhook-signature"]!,
    );
    expect([standard.code, standard.output.trim()]).toEqual([0, "valid"]);
    writeFileSync(bodyFile, body.replace("run_1", "run_2"));
    const tampered = await svc(
      "webhooks",
      "verify",
      "--secret",
      secret,
      "--body-file",
      bodyFile,
      "--signature",
      headers["X-SVC-Signature"]!,
    );
    expect([tampered.code, tampered.output.trim()]).toEqual([1, "invalid"]);
  }, 60_000);

  it("weighs a workspace in the task queue's fair shares, and puts it back to the default", async () => {
    const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = proto.temporal.api.enums.v1.TaskQueueType;
    const connection = await connectTemporalClient(testConfig());
    const overrides = async () =>
      Promise.all(
        [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY].map(async (taskQueueType) => {
          const described = await connection.workflowService.describeTaskQueue({
            namespace: "default",
            taskQueue: { name: taskQueue },
            taskQueueType,
            reportConfig: true,
          });
          return described.config?.fairnessWeightOverrides?.[workspaceId];
        }),
      );
    try {
      const weighed = await svc("workspaces", "weight", workspaceId, "--weight", "2.5");
      expect(weighed.code, weighed.output).toBe(0);
      expect(weighed.output).toContain(`weighs 2.5 on ${taskQueue}`);
      expect(await overrides()).toEqual([2.5, 2.5]);
      const reset = await svc("workspaces", "weight", workspaceId, "--weight", "default");
      expect(reset.code, reset.output).toBe(0);
      expect(await overrides()).toEqual([undefined, undefined]);
      for (const bad of ["0", "1001", "heavy"]) {
        const refused = await svc("workspaces", "weight", workspaceId, "--weight", bad);
        expect([refused.code, refused.output], bad).toEqual([2, expect.stringContaining("--weight")]);
      }
      const unknown = await svc("workspaces", "weight", "ws_nope", "--weight", "2");
      expect([unknown.code, unknown.output]).toEqual([2, expect.stringContaining("No workspace ws_nope")]);
    } finally {
      await connection.close();
    }
  }, 60_000);
});
