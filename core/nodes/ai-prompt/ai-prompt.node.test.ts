// ai.prompt through real runs on a real worker, against a loopback provider speaking the
// OpenAI and Anthropic protocols.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createDataConverter } from "../../engine/data-converter.js";
import { parseKeyRing, type RingKey } from "../../../lib/crypto/key-ring.js";
import { TEST_ENCRYPTION_KEY, testPrisma } from "../../../test/helpers/context.js";
import {
  anthropicAnswer,
  openAiAnswer,
  providerFailure,
  startFakeProvider,
} from "../../../test/helpers/fake-llm-provider.js";
import { exportedHistory, openedHistory, searchableText } from "../../../test/helpers/histories.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: {
    OPENAI_API_KEY: "sk-test-openai-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: provider.url,
    AI_KEYS_SECRET: "ab".repeat(32),
  },
});
beforeEach(() => provider.reset());

const promptFlow = (config: object, retry?: object) =>
  flow([{ id: "ask", type: "ai.prompt", config, ...(retry ? { retry } : {}) }], [["start", "ask"]]);

describe("ai.prompt", () => {
  it("calls an OpenAI-compatible provider with the rendered prompt and outputs text, model and usage", async () => {
    provider.script(
      "openai",
      openAiAnswer({ text: "Bonjour, Ada!", model: "gpt-test-2025" }, { prompt_tokens: 21, completion_tokens: 4 }),
    );
    const flowId = await h.createFlow(
      promptFlow({
        model: "gpt-test",
        system: "You translate to French.",
        prompt: "Say hello to {{ input.name }}",
        temperature: 0.2,
        max_tokens: 50,
      }),
    );
    const run = await h.runToEnd(flowId, { name: "Ada" });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toEqual({
      text: "Bonjour, Ada!",
      model: "gpt-test-2025",
      usage: { input_tokens: 21, output_tokens: 4, total_tokens: 25 },
      finish_reason: "stop",
    });
    expect(provider.calls).toHaveLength(1);
    const [call] = provider.calls;
    expect(call!.headers.authorization).toBe("Bearer sk-test-openai-key");
    expect(call!.body).toMatchObject({
      model: "gpt-test",
      max_tokens: 50,
      temperature: 0.2,
      messages: [
        { role: "system", content: "You translate to French." },
        { role: "user", content: "Say hello to Ada" },
      ],
    });
  });

  it("speaks Anthropic Messages, and parses the answer in JSON mode", async () => {
    provider.script("anthropic", anthropicAnswer({ text: '```json\n{"sentiment": "positive", "score": 0.9}\n```' }));
    const flowId = await h.createFlow(
      promptFlow({ provider: "anthropic", model: "claude-test", prompt: "Rate: {{ input.review }}", json: true }),
    );
    const run = await h.runToEnd(flowId, { review: "Lovely" });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toMatchObject({
      json: { sentiment: "positive", score: 0.9 },
      model: "claude-test",
      usage: { input_tokens: 13, output_tokens: 5, total_tokens: 18 },
      finish_reason: "end_turn",
    });
    const [call] = provider.calls;
    // Older SDKs send x-api-key, current ones a bearer token: either carries the workspace's key.
    expect(call!.headers["x-api-key"] ?? call!.headers.authorization).toMatch(/^(Bearer )?sk-ant-test-key$/);
    expect(call!.headers["anthropic-version"]).toBeTruthy();
    expect(call!.body).toMatchObject({
      model: "claude-test",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Rate: Lovely" }],
    });
    expect(String(call!.body.system)).toMatch(/JSON object/);
  });

  it("retries a rate limit (429) with backoff, then succeeds", async () => {
    provider.script(
      "openai",
      providerFailure("openai", 429, "Rate limit reached for requests"),
      openAiAnswer({ text: "second time lucky" }),
    );
    const flowId = await h.createFlow(
      promptFlow({ model: "gpt-test", prompt: "hi" }, { initial_interval_ms: 100, max_attempts: 3 }),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.output).toMatchObject({ text: "second time lucky" });
    expect(provider.calls).toHaveLength(2);
    const steps = await h.steps(run.id);
    const ask = steps.filter((step) => step.node_id === "ask");
    expect(ask.map((step) => [step.attempt, step.status])).toEqual([
      [1, "failed"],
      [2, "success"],
    ]);
    expect(JSON.stringify(ask[0]!.error)).toMatch(/429 Rate limit reached/);
  });

  it("fails at once on a 401, with the provider's message, and on a model that does not answer JSON", async () => {
    provider.script("anthropic", providerFailure("anthropic", 401, "invalid x-api-key"));
    const flowId = await h.createFlow(promptFlow({ provider: "anthropic", model: "claude-test", prompt: "hi" }));
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/401.*invalid x-api-key/);
    expect(provider.calls).toHaveLength(1);

    provider.script("openai", openAiAnswer({ text: "Sure! Here is your JSON: {oops" }));
    const notJson = await h.createFlow(promptFlow({ model: "gpt-test", prompt: "hi", json: true }));
    const failed = await h.runToEnd(notJson);
    expect(failed.status).toBe("failed");
    expect(JSON.stringify(failed.error)).toMatch(/did not answer with JSON/);
    expect(provider.calls.filter((c) => c.protocol === "openai")).toHaveLength(1);
    expect(provider.calls.at(-1)!.body.response_format).toEqual({ type: "json_object" });
  });

  it("uses the workspace's own key when it has one: stored sealed, never returned", async () => {
    const keys = () => request(h.app).get("/api/workspace/ai-keys").set("Cookie", h.cookie);
    expect((await keys()).body).toMatchObject({
      can_store: true,
      items: [
        { provider: "openai", source: "server", last4: null },
        { provider: "anthropic", source: "server", last4: null },
      ],
    });
    const own = "sk-workspace-own-key-9876";
    const put = await request(h.app)
      .put("/api/workspace/ai-keys/openai")
      .set("Cookie", h.cookie)
      .send({ api_key: own });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ provider: "openai", source: "workspace", last4: "9876" });
    const listed = await keys();
    expect(JSON.stringify(listed.body)).not.toContain(own);
    expect(listed.body.items[0]).toMatchObject({ source: "workspace", last4: "9876" });
    // Kept as the workspace's default ai_provider credential.
    const row = await testPrisma().credential.findFirstOrThrow({
      where: { workspaceId: h.workspaceId, defaultFor: "openai" },
    });
    expect(row.ciphertext).not.toContain(own);

    const flowId = await h.createFlow(promptFlow({ model: "gpt-test", prompt: "hi" }));
    provider.script("openai", openAiAnswer({ text: "a" }), openAiAnswer({ text: "b" }));
    expect((await h.runToEnd(flowId)).status).toBe("success");
    expect(provider.calls[0]!.headers.authorization).toBe(`Bearer ${own}`);

    const removed = await request(h.app).delete("/api/workspace/ai-keys/openai").set("Cookie", h.cookie);
    expect(removed.status).toBe(200);
    expect((await h.runToEnd(flowId)).status).toBe("success");
    expect(provider.calls[1]!.headers.authorization).toBe("Bearer sk-test-openai-key");

    const bad = await request(h.app).put("/api/workspace/ai-keys/acme").set("Cookie", h.cookie).send({ api_key: own });
    expect(bad.status).toBe(400);
    const again = await request(h.app).delete("/api/workspace/ai-keys/openai").set("Cookie", h.cookie);
    expect(again.status).toBe(404);
  });

  it("uses the ai_provider credential it names, which must be a key of its provider", async () => {
    const credential = async (provider: string, apiKey: string) => {
      const res = await request(h.app)
        .post("/api/credentials")
        .set("Cookie", h.cookie)
        .send({ name: `${provider} ${apiKey.slice(-4)}`, type: "ai_provider", data: { provider, api_key: apiKey } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const teamKey = "sk-team-credential-4242";
    const flowId = await h.createFlow(
      promptFlow({ model: "gpt-test", prompt: "hi", credential_id: await credential("openai", teamKey) }),
    );
    provider.script("openai", openAiAnswer({ text: "a" }));
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(provider.calls[0]!.headers.authorization).toBe(`Bearer ${teamKey}`);
    expect(JSON.stringify(await h.steps(run.id))).not.toContain(teamKey);

    const anthropicKey = await credential("anthropic", "sk-ant-credential-5151");
    const mismatched = await h.createFlow(promptFlow({ model: "gpt-test", prompt: "hi", credential_id: anthropicKey }));
    const failed = await h.runToEnd(mismatched);
    expect(failed.status).toBe("failed");
    expect(JSON.stringify(failed.error)).toContain(
      `The credential ${anthropicKey} holds a key for anthropic, not openai`,
    );
    expect(provider.calls).toHaveLength(1);
  });

  describe("fallbacks", () => {
    const credential = async (provider: string, apiKey: string) => {
      const res = await request(h.app)
        .post("/api/credentials")
        .set("Cookie", h.cookie)
        .send({ name: `${provider} ${apiKey.slice(-6)}`, type: "ai_provider", data: { provider, api_key: apiKey } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const fast = { initial_interval_ms: 100, max_attempts: 2 };

    it("calls the next model when the primary answers 429 on every attempt, recorded on the step; cost counted once, for the model that answered", async () => {
      const primaryKey = "sk-primary-fallback-secret-7a7a";
      const fallbackKey = "sk-ant-fallback-secret-9b9b";
      const primaryCredential = await credential("openai", primaryKey);
      const fallbackCredential = await credential("anthropic", fallbackKey);
      provider.script(
        "openai",
        providerFailure("openai", 429, "Rate limit reached for requests"),
        providerFailure("openai", 429, "Rate limit reached for requests"),
      );
      provider.script("anthropic", anthropicAnswer({ text: "from the fallback" }));
      const flowId = await h.createFlow(
        promptFlow(
          {
            model: "gpt-test",
            prompt: "hi",
            credential_id: primaryCredential,
            fallbacks: [{ provider: "anthropic", model: "claude-test", credential_id: fallbackCredential }],
          },
          fast,
        ),
      );
      const run = await h.runToEnd(flowId);
      expect(run.status, JSON.stringify(run.error)).toBe("success");
      expect(run.output).toMatchObject({
        text: "from the fallback",
        fallback: {
          provider: "anthropic",
          model: "claude-test",
          tried: [{ provider: "openai", model: "gpt-test", error: expect.stringMatching(/429 Rate limit reached/) }],
        },
      });
      // Two attempts of the primary (its retry policy), then the fallback once, with its own key.
      expect(provider.calls.map((c) => c.protocol)).toEqual(["openai", "openai", "anthropic"]);
      expect(provider.calls[0]!.headers.authorization).toBe(`Bearer ${primaryKey}`);
      const fallbackCall = provider.calls[2]!;
      expect(fallbackCall.headers["x-api-key"] ?? fallbackCall.headers.authorization).toMatch(
        new RegExp(`^(Bearer )?${fallbackKey}$`),
      );
      const ask = (await h.steps(run.id)).filter((step) => step.node_id === "ask");
      expect(ask.map((step) => [step.attempt, step.status])).toEqual([
        [1, "failed"],
        [2, "success"],
      ]);
      expect(ask[1]!.output).toMatchObject({ fallback: { provider: "anthropic", model: "claude-test" } });
      const usage = await testPrisma().modelUsage.findMany({ where: { runId: run.id } });
      expect(usage.map((row) => [row.provider, row.model])).toEqual([["anthropic", "claude-test"]]);

      // Neither key in the steps, the run, the usage rows or the opened Temporal history.
      const detail = await request(h.app).get(`/api/runs/${run.id}`).set("Cookie", h.cookie);
      const [codec] = createDataConverter({
        SVC_ENCRYPTION_KEY: parseKeyRing(TEST_ENCRYPTION_KEY) as RingKey[],
      }).payloadCodecs;
      const history = searchableText(await openedHistory(await exportedHistory(h.deps.temporal, run.id), codec!));
      expect(history).toContain("from the fallback");
      for (const text of [JSON.stringify(ask), JSON.stringify(detail.body), JSON.stringify(usage), history]) {
        expect(text).not.toContain(primaryKey);
        expect(text).not.toContain(fallbackKey);
      }
    });

    it("does not fall back on a 400, nor before the primary's last attempt; names every model tried when none answers", async () => {
      provider.script("openai", providerFailure("openai", 400, "Invalid model parameter"));
      const invalid = await h.createFlow(
        promptFlow(
          { model: "gpt-test", prompt: "hi", fallbacks: [{ provider: "anthropic", model: "claude-test" }] },
          fast,
        ),
      );
      const refused = await h.runToEnd(invalid);
      expect(refused.status).toBe("failed");
      expect(JSON.stringify(refused.error)).toMatch(/400 Invalid model parameter/);
      expect(provider.calls.map((c) => c.protocol)).toEqual(["openai"]);

      provider.reset();
      provider.script(
        "openai",
        providerFailure("openai", 503, "overloaded"),
        providerFailure("openai", 503, "overloaded"),
        providerFailure("openai", 429, "second fallback limited too"),
      );
      provider.script("anthropic", providerFailure("anthropic", 529, "anthropic overloaded"));
      const none = await h.createFlow(
        promptFlow(
          {
            model: "gpt-test",
            prompt: "hi",
            fallbacks: [
              { provider: "anthropic", model: "claude-test" },
              { provider: "openai", model: "gpt-other" },
            ],
          },
          fast,
        ),
      );
      const failed = await h.runToEnd(none);
      expect(failed.status).toBe("failed");
      expect(provider.calls.map((c) => [c.protocol, c.body.model])).toEqual([
        ["openai", "gpt-test"],
        ["openai", "gpt-test"],
        ["anthropic", "claude-test"],
        ["openai", "gpt-other"],
      ]);
      const error = JSON.stringify(failed.error);
      expect(error).toMatch(/No model answered/);
      expect(error).toMatch(/openai\/gpt-test: .*503/);
      expect(error).toMatch(/anthropic\/claude-test: .*529/);
      expect(error).toMatch(/openai\/gpt-other: .*429/);
      expect(await testPrisma().modelUsage.count({ where: { runId: failed.id } })).toBe(0);
    });

    it("checks the fallbacks' credentials as the primary's when the flow is saved, and at most three fallbacks", async () => {
      const bearer = await request(h.app)
        .post("/api/credentials")
        .set("Cookie", h.cookie)
        .send({ name: "a bearer", type: "bearer", data: { token: "t-123" } });
      expect(bearer.status, JSON.stringify(bearer.body)).toBe(201);
      const wrongType = bearer.body.id as string;
      for (const [fallbacks, field] of [
        [
          [{ provider: "anthropic", model: "c", credential_id: "cred_" + "0".repeat(24) }],
          "fallbacks[0].credential_id",
        ],
        [
          [
            { provider: "anthropic", model: "c" },
            { provider: "openai", model: "g", credential_id: wrongType },
          ],
          "fallbacks[1].credential_id",
        ],
        [[1, 2, 3, 4].map(() => ({ provider: "openai", model: "g" })), "fallbacks"],
        [[{ provider: "nobody", model: "g" }], "fallbacks"],
      ] as const) {
        const res = await request(h.app)
          .post("/api/flows")
          .set("Cookie", h.cookie)
          .send({ name: "fallbacks", definition: promptFlow({ model: "gpt-test", prompt: "hi", fallbacks }) });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.code).toBeTypeOf("string");
        expect(JSON.stringify(res.body)).toContain(field);
      }
    });
  });
});
