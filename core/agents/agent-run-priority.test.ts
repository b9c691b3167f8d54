// An agent run started through the API waits in the task queue in its workspace's share, as flow
// runs do: Temporal describes its workflow with the workspace as fairness key (docs/engine.md,
// "Flow control on Temporal").
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { openAiAnswer, startFakeProvider } from "../../test/helpers/fake-llm-provider.js";
import { useRunHarness } from "../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1`, SVC_ENCRYPTION_KEY: "" },
});

describe("an agent run's place in the task queue", () => {
  it("is its workspace's: the workspace id is its fairness key, at the default priority", async () => {
    provider.script("openai", openAiAnswer({ text: "done" }));
    const res = await request(h.app)
      .post("/api/agent/run")
      .set("Cookie", h.cookie)
      .send({ instructions: "say done", provider: "openai", model: "gpt-test", wait: 20_000 });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const id = res.body.agent_run_id as string;
    const described = await h.deps.temporal.workflow.getHandle(id).describe();
    expect(described.priority).toMatchObject({ fairnessKey: h.workspaceId });
    expect(described.priority?.priorityKey ?? 0).toBe(0);
  });
});
