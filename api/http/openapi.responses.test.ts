// The answers the dashboard reads, checked against the body schemas the OpenAPI document declares
// for them (the same schemas web/src/api-types.ts is generated from), so that neither drifts from
// what the handlers really answer without a failing test.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { buildApp } from "../app.js";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser, joinWorkspace } from "../../test/helpers/identity.js";
import { openAiAnswer, startFakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import type { ApiDocs } from "./openapi.js";

// Agent runs call a model provider: a loopback server speaking its protocol.
const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` },
});
let docs: ApiDocs;
beforeAll(() => {
  docs = buildApp(h.deps).docs;
});

/** The body schema the document declares for an operation's answer with this status. */
function documentedBody(method: string, path: string, status: number): z.ZodType {
  const route = docs.routes.find((r) => r.method === method && r.fullPath === path);
  const response = route?.responses[status];
  if (typeof response !== "object") throw new Error(`${method.toUpperCase()} ${path} documents no ${status} body`);
  return response.schema;
}

/** Calls the API as the harness's user and checks the answer against its documented schema. */
async function answerOf(
  method: "get" | "post" | "put" | "delete",
  path: string,
  documentedPath: string,
  body?: object,
) {
  const call = request(h.app)[method](path).set("Cookie", h.cookie);
  const res = body === undefined ? await call : await call.send(body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  const parsed = documentedBody(method, documentedPath, res.status).safeParse(res.body);
  expect(parsed.error, `${method.toUpperCase()} ${path}`).toBeUndefined();
  // Objects drop the keys their schema does not name: a field missing from the document shows here.
  expect(parsed.data, `${method.toUpperCase()} ${path} answers fields its schema does not name`).toEqual(res.body);
  return res.body as Record<string, unknown> & { items: Array<Record<string, unknown>> };
}

describe("the documented answers", () => {
  it("of flows, their versions, runs, steps and logs are what the API answers", async () => {
    const definition = flow(
      [{ id: "say", type: "log", config: { message: "hello {{ input.n }}" }, position: { x: 1, y: 2 } }],
      [["start", "say"]],
    );
    const created = await answerOf("post", "/api/flows", "/api/flows", { name: "Documented", definition });
    const id = created.id as string;
    await answerOf("get", `/api/flows/${id}`, "/api/flows/{id}");
    const updated = await answerOf("put", `/api/flows/${id}`, "/api/flows/{id}", {
      version: 1,
      definition: { ...definition, viewport: { zoom: 2 } },
    });
    expect(updated.version).toBe(2);
    expect((await answerOf("get", "/api/flows", "/api/flows")).items.length).toBeGreaterThan(0);
    await answerOf("get", `/api/flows/${id}/versions`, "/api/flows/{id}/versions");
    await answerOf("get", `/api/flows/${id}/versions/1`, "/api/flows/{id}/versions/{version}");

    const started = await h.startRun(id, { n: 1 });
    const runId = started.body.run_id as string;
    await h.waitForEnd(runId);
    const { run } = await answerOf("get", `/api/runs/${runId}`, "/api/runs/{id}");
    expect(run).toMatchObject({ status: "success" });
    const steps = await answerOf("get", `/api/runs/${runId}/steps`, "/api/runs/{id}/steps");
    expect(steps.items.length).toBe(2);
    expect((await answerOf("get", `/api/runs?flow_id=${id}`, "/api/runs")).items).toHaveLength(1);
    expect((await answerOf("get", `/api/logs?run_id=${runId}`, "/api/logs")).items.length).toBeGreaterThan(0);
  });

  it("of a flow's hook and schedule are what the API answers", async () => {
    const hooked = await answerOf("post", "/api/flows", "/api/flows", {
      name: "Hooked",
      definition: { nodes: [{ id: "hook", type: "http_trigger", config: {} }], edges: [] },
    });
    expect(hooked.hook).toMatchObject({ live: true });
    const scheduled = await answerOf("post", "/api/flows", "/api/flows", {
      name: "Scheduled",
      status: "inactive",
      definition: { nodes: [{ id: "tick", type: "schedule", config: { interval: "1h" } }], edges: [] },
    });
    expect(scheduled.schedule).toMatchObject({ interval: "1h", paused: true });
    await answerOf("get", `/api/flows/${scheduled.id as string}`, "/api/flows/{id}");
  });

  it("of the session, metrics, the node catalog, the templates and credentials are what the API answers", async () => {
    await answerOf("get", "/api/auth/session", "/api/auth/session");
    await answerOf("get", "/api/metrics", "/api/metrics");
    expect((await answerOf("get", "/api/nodes", "/api/nodes")).items.length).toBeGreaterThan(10);
    expect((await answerOf("get", "/api/templates", "/api/templates")).items.length).toBeGreaterThan(0);
    const credential = await answerOf("post", "/api/credentials", "/api/credentials", {
      name: "Documented token",
      type: "bearer",
      data: { token: "secret-token-1234" },
    });
    await answerOf("get", `/api/credentials/${credential.id as string}`, "/api/credentials/{id}");
    expect((await answerOf("get", "/api/credentials", "/api/credentials")).items.length).toBeGreaterThan(0);
  });

  it("of workspaces, members and invites are what the API answers", async () => {
    await answerOf("get", "/api/workspaces", "/api/workspaces");
    const members = await answerOf("get", "/api/workspace/members", "/api/workspace/members");
    expect(members.items).toHaveLength(1);
    const invited = await answerOf("post", "/api/workspace/members", "/api/workspace/members", {
      email: `documented-${Date.now()}@example.com`,
      role: "viewer",
    });
    const token = (invited.accept_url as string).split("/").at(-1)!;
    await answerOf("get", `/api/invites/${token}`, "/api/invites/{token}");
    expect((await answerOf("get", "/api/workspace/invites", "/api/workspace/invites")).items).toHaveLength(1);

    // A member of this workspace only: offered the owner role, and given a password reset link.
    const member = await createTestUser("documented");
    await joinWorkspace(h.app, h.cookie, member, "editor");
    await testPrisma().membership.deleteMany({
      where: { userId: member.user.id, NOT: { workspaceId: h.workspaceId } },
    });
    const memberPath = `/api/workspace/members/${member.user.id}`;
    const offered = await answerOf("put", memberPath, "/api/workspace/members/{userId}", { role: "owner" });
    expect(offered.offer).toBeDefined();
    const reset = await answerOf(
      "post",
      `${memberPath}/password-reset`,
      "/api/workspace/members/{userId}/password-reset",
      {},
    );
    const resetToken = (reset.reset_url as string).split("/").at(-1)!;
    await answerOf("get", `/api/auth/password-resets/${resetToken}`, "/api/auth/password-resets/{token}");
  });

  it("of waits are what the API answers", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "ask", type: "wait", name: "Ask", config: { mode: "resume" } }], [["start", "ask"]]),
    );
    const runId = (await h.startRun(flowId)).body.run_id as string;
    for (let tries = 0; tries < 150 && !(await testPrisma().wait.findFirst({ where: { runId } })); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [wait] = (await answerOf("get", `/api/runs/${runId}/waits`, "/api/runs/{id}/waits")).items;
    expect(wait).toMatchObject({ mode: "resume", status: "pending", resume_url: expect.any(String) });
    expect((await answerOf("get", "/api/waits", "/api/waits")).items.length).toBeGreaterThan(0);
  });

  it("of webhook settings, endpoints and deliveries are what the API answers", async () => {
    const created = await answerOf("post", "/api/settings/webhooks", "/api/settings/webhooks", {
      url: "https://hooks.example.com/in",
      events: ["run.failed"],
    });
    expect(created.secret).toEqual(expect.any(String));
    const id = created.id as string;
    expect((await answerOf("get", "/api/settings/webhooks", "/api/settings/webhooks")).secret).not.toBeNull();
    await answerOf("get", `/api/settings/webhooks/${id}`, "/api/settings/webhooks/{id}");
    await answerOf("put", `/api/settings/webhooks/${id}`, "/api/settings/webhooks/{id}", { enabled: true });
    const ping = await answerOf("post", `/api/settings/webhooks/${id}/ping`, "/api/settings/webhooks/{id}/ping", {});
    await answerOf(
      "get",
      `/api/settings/webhooks/deliveries/${ping.id as string}`,
      "/api/settings/webhooks/deliveries/{deliveryId}",
    );
    const deliveries = await answerOf(
      "get",
      `/api/settings/webhooks/${id}/deliveries`,
      "/api/settings/webhooks/{id}/deliveries",
    );
    expect(deliveries.items).toHaveLength(1);
    await answerOf("post", "/api/settings/webhooks/secret/rotate", "/api/settings/webhooks/secret/rotate", {});
  });

  it("of a node test, AI keys and workspace settings are what the API answers", async () => {
    const tested = await answerOf("post", "/api/nodes/test", "/api/nodes/test", {
      type: "set",
      config: { fields: { greeting: "hi" } },
      input: { n: 1 },
    });
    expect(tested.status).toBe("success");
    await answerOf("put", "/api/workspace/ai-keys/openai", "/api/workspace/ai-keys/{provider}", {
      api_key: "sk-documented-1234567890",
    });
    const keys = await answerOf("get", "/api/workspace/ai-keys", "/api/workspace/ai-keys");
    expect(keys.items).toContainEqual(expect.objectContaining({ provider: "openai", source: "workspace" }));
    await answerOf("get", "/api/workspace/settings", "/api/workspace/settings");
  });

  it("of API tokens are what the API answers", async () => {
    const created = await answerOf("post", "/api/workspace/tokens", "/api/workspace/tokens", {
      name: "Documented",
      scopes: ["read"],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(created.token).toMatch(/^svc_pat_/);
    const listed = await answerOf("get", "/api/workspace/tokens", "/api/workspace/tokens");
    expect(listed.items).toContainEqual(expect.objectContaining({ id: created.id, status: "active" }));
    const revoked = await answerOf(
      "delete",
      `/api/workspace/tokens/${created.id as string}`,
      "/api/workspace/tokens/{id}",
    );
    expect(revoked.status).toBe("revoked");
  });

  it("of the agent catalog, agent runs, their log and memory are what the API answers", async () => {
    await answerOf("get", "/api/agent/catalog", "/api/agent/catalog");
    provider.script("openai", openAiAnswer({ text: "Done." }));
    const ended = await answerOf("post", "/api/agent/run", "/api/agent/run", {
      agent: "documented",
      instructions: "Say done",
      provider: "openai",
      model: "gpt-test",
      tools: ["memory.read"],
      wait: 20_000,
    });
    expect(ended).toMatchObject({ status: "success", answer: "Done." });
    const id = ended.agent_run_id as string;
    const detail = await answerOf("get", `/api/agent/runs/${id}`, "/api/agent/runs/{id}");
    expect((detail.steps as unknown[]).length).toBeGreaterThan(0);
    const logs = await answerOf("get", `/api/agent/logs?agent_run_id=${id}`, "/api/agent/logs");
    expect(logs.items.length).toBeGreaterThan(0);
    await answerOf("post", "/api/agent/memory", "/api/agent/memory", {
      agent: "documented",
      key: "k",
      value: { a: 1 },
    });
    await answerOf("get", "/api/agent/memory?agent=documented&key=k", "/api/agent/memory");
    const memory = await answerOf("get", "/api/agent/memory?agent=documented", "/api/agent/memory");
    expect(memory.items).toHaveLength(1);
  });
});
