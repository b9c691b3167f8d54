// An agent run's model fallbacks given through the API (`fallbacks` of POST /api/agent/run), on a
// real worker and dev server: each fallback's credential is checked as the model's is (the
// workspace's, an ai_provider key of that fallback's provider), and the fallbacks reach the run as
// the ai.agent node's do (the falling back itself: worker/activities/agent/model-call.test.ts).
import { randomBytes } from "node:crypto";
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { useRunHarness } from "../../../test/helpers/runs.js";

const SECRET = `sk-ant-fallback-${randomBytes(12).toString("hex")}`;
const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1` },
});
beforeEach(() => provider.reset());

const runAgent = (body: object) => request(h.app).post("/api/agent/run").set("Cookie", h.cookie).send(body);
const createCredential = async (provider: string, apiKey: string) => {
  const res = await request(h.app)
    .post("/api/credentials")
    .set("Cookie", h.cookie)
    .send({ name: `AI ${provider}`, type: "ai_provider", data: { provider, api_key: apiKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};

describe("an agent run's fallbacks through the API", () => {
  it("checks each fallback's credential, and the run records its fallbacks by model and credential id", async () => {
    const anthropic = await createCredential("anthropic", SECRET);
    const openai = await createCredential("openai", "sk-openai-other-123");

    const wrongProvider = await runAgent({
      instructions: "x",
      fallbacks: [
        { provider: "openai", model: "gpt-b" },
        { provider: "anthropic", model: "claude-b", credential_id: openai },
      ],
    });
    expect(wrongProvider.status).toBe(400);
    expect(wrongProvider.body).toMatchObject({ code: "validation_failed" });
    expect(wrongProvider.body.error).toMatch(/^fallbacks\[1\]\.credential_id: /);

    const unknown = await runAgent({
      instructions: "x",
      fallbacks: [{ provider: "anthropic", model: "claude-b", credential_id: `cred_${"0".repeat(24)}` }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^fallbacks\[0\]\.credential_id: /);

    const four = await runAgent({
      instructions: "x",
      fallbacks: Array.from({ length: 4 }, (_, i) => ({ provider: "openai", model: `gpt-${i}` })),
    });
    expect(four.status).toBe(400);
    expect(JSON.stringify(four.body)).toContain("fallbacks");
    expect(provider.calls).toHaveLength(0);

    provider.script("openai", openAiAnswer({ text: "fine" }));
    const fallbacks = [{ provider: "anthropic", model: "claude-b", credential_id: anthropic }];
    const run = await runAgent({ instructions: "hi", model: "gpt-a", fallbacks, wait: 20_000 });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({ status: "success", answer: "fine" });
    const logs = await request(h.app)
      .get(`/api/agent/logs?agent_run_id=${run.body.agent_run_id}`)
      .set("Cookie", h.cookie);
    const started = (logs.body.items as Array<{ message: string; data: Record<string, unknown> }>).find(
      (entry) => entry.message === "agent run started",
    );
    expect(started?.data).toMatchObject({ model: "gpt-a", fallbacks });
    expect(JSON.stringify(logs.body)).not.toContain(SECRET);
    expect(JSON.stringify(run.body)).not.toContain(SECRET);
  });
});
