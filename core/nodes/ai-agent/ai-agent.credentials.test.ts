// An ai.agent node naming an ai_provider credential: its model calls use that key, through a real
// worker and dev server against a loopback provider speaking OpenAI's protocol.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-server-key", OPENAI_BASE_URL: `${provider.url}/v1`, AI_DEFAULT_PROVIDER: "openai" },
});
beforeEach(() => provider.reset());

const credential = async (providerName: string, apiKey: string) => {
  const res = await request(h.app)
    .post("/api/credentials")
    .set("Cookie", h.cookie)
    .send({
      name: `${providerName} ${apiKey}`,
      type: "ai_provider",
      data: { provider: providerName, api_key: apiKey },
    });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const agentFlow = (credentialId: string) =>
  flow(
    [
      {
        id: "think",
        type: "ai.agent",
        config: { instructions: "Say ok", model: "gpt-test", credential_id: credentialId },
      },
    ],
    [["start", "think"]],
  );

describe("ai.agent with a stored provider key", () => {
  it("makes its model calls with the key of the credential it names, which no step or output shows", async () => {
    const key = "sk-agent-credential-2468";
    provider.script("openai", openAiAnswer({ text: "ok" }));
    const run = await h.runToEnd(await h.createFlow(agentFlow(await credential("openai", key))));
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toMatchObject({ answer: "ok", reason: "answered" });
    expect(provider.calls.map((call) => call.headers.authorization)).toEqual([`Bearer ${key}`]);
    const agentRunId = (run.output as { agent_run_id: string }).agent_run_id;
    const agentRun = await request(h.app).get(`/api/agent/runs/${agentRunId}`).set("Cookie", h.cookie);
    expect(JSON.stringify([run, await h.steps(run.id), agentRun.body])).not.toContain(key);
  });

  it("takes a credential for an agent run started through the API, and refuses one that is no key of its provider", async () => {
    const key = "sk-api-agent-credential-8642";
    const id = await credential("openai", key);
    provider.script("openai", openAiAnswer({ text: "ok from the API" }));
    const run = (body: object) => request(h.app).post("/api/agent/run").set("Cookie", h.cookie).send(body);
    const answered = await run({ instructions: "Say ok", model: "gpt-test", credential_id: id, wait: 20_000 });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body).toMatchObject({ status: "success", answer: "ok from the API" });
    expect(provider.calls.map((call) => call.headers.authorization)).toEqual([`Bearer ${key}`]);
    expect(JSON.stringify(answered.body)).not.toContain(key);

    const other = await credential("anthropic", "sk-ant-api-agent-9753");
    for (const [credentialId, why] of [
      [other, '"anthropic sk-ant-api-agent-9753" holds a key for anthropic, not openai'],
      ["cred_000000000000000000000000", 'no credential "cred_000000000000000000000000" in this workspace'],
    ]) {
      const refused = await run({ instructions: "Say ok", provider: "openai", credential_id: credentialId });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "validation_failed", error: `credential_id: ${why}` });
    }
    expect(provider.calls).toHaveLength(1);
  });

  it("fails the agent without calling the model when the credential holds another provider's key", async () => {
    const id = await credential("anthropic", "sk-ant-agent-1357");
    const run = await h.runToEnd(await h.createFlow(agentFlow(id)));
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toContain(`The credential ${id} holds a key for anthropic, not openai`);
    expect(provider.calls).toEqual([]);
  });

  it("refuses at save an MCP server's credential that is missing, another workspace's, of the wrong type, or a template", async () => {
    const mcpFlow = (credentialId: string) =>
      flow(
        [
          {
            id: "think",
            type: "ai.agent",
            config: {
              instructions: "Say ok",
              mcp_servers: [
                { url: "https://tools.example.com/mcp" },
                { url: "https://other.example.com/mcp", label: "other", credential_id: credentialId },
              ],
            },
          },
        ],
        [["start", "think"]],
      );
    const save = (credentialId: string) =>
      request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "MCP", definition: mcpFlow(credentialId) });
    const bearer = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", h.cookie)
      .send({ name: "MCP bearer", type: "bearer", data: { token: "mcp-bearer-1357" } });
    expect(bearer.status).toBe(201);
    const saved = await save(bearer.body.id as string);
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);

    const stranger = await createTestUser("mcp-cred-other");
    const theirs = await request(h.app)
      .post("/api/credentials")
      .set("Cookie", (await login(h.app, stranger.email)).cookie)
      .send({ name: "Theirs", type: "bearer", data: { token: "theirs-2468" } });
    expect(theirs.status).toBe(201);
    const cases: Array<[string, RegExp]> = [
      ["cred_000000000000000000000000", /no credential "cred_000000000000000000000000" in this workspace/],
      [theirs.body.id as string, /no credential "cred_[0-9a-f]+" in this workspace/],
      [
        await credential("openai", "sk-mcp-wrong-type"),
        /is a ai_provider credential; this node takes bearer, oauth2_client_credentials, api_key, headers/,
      ],
      ["{{ input.credential }}", /must be a credential id/],
    ];
    for (const [credentialId, message] of cases) {
      const res = await save(credentialId);
      expect(res.status, credentialId).toBe(400);
      expect(res.body.code).toBe("invalid_definition");
      expect(res.body.details).toEqual([
        { path: "definition.nodes[1].config.mcp_servers[1].credential_id", message: expect.stringMatching(message) },
      ]);
    }
  });
});
