// An agent's model call as an activity (Temporal's mock activity context) against the loopback
// provider: its usage is written once under the call's identity, so a retried call is counted
// once, in the usage table and in the operator metrics.
import { MockActivityEnvironment } from "@temporalio/testing";
import { DefaultLogger } from "@temporalio/worker";
import { afterAll, describe, expect, it } from "vitest";
import { recordAgentRunStart } from "../../../core/agents/agent-records.js";
import { resolveAgentSettings } from "../../../core/agents/agent-settings.js";
import { createLanguageModels } from "../../../core/ai/language-models.js";
import { DEFAULT_PRICES } from "../../../core/usage/prices.js";
import { systemClock } from "../../../lib/clock.js";
import { newId } from "../../../lib/ids.js";
import { createWorkerMetrics } from "../../../lib/operator-metrics.js";
import { testConfig, testPrisma, testSeal } from "../../../test/helpers/context.js";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { agentModelCall } from "./model-call.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());

const mockContext = (attempt: number) =>
  new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger("ERROR", () => undefined) });

describe("agentModelCall", () => {
  it("writes a call's usage once: a retried attempt is counted once, in the table and the metrics", async () => {
    const prisma = testPrisma();
    const user = await createTestUser("model-call");
    const workspaceId = user.workspace.workspaceId;
    const settings = resolveAgentSettings(
      { agent: "assistant", instructions: "hi", model: "gpt-4o-mini" },
      { provider: "openai", model: "gpt-4o-mini" },
    );
    const agentRunId = newId("agr");
    await recordAgentRunStart(
      { prisma, clock: systemClock, seal: testSeal },
      { id: agentRunId, workspaceId, settings },
    );
    const metrics = createWorkerMetrics();
    const deps = {
      prisma,
      clock: systemClock,
      seal: testSeal,
      models: createLanguageModels(testConfig({ OPENAI_BASE_URL: `${provider.url}/v1` })),
      apiKeyFor: async () => "sk-test",
      metrics,
    };
    const input = {
      agentRunId,
      workspaceId,
      number: 1,
      provider: "openai" as const,
      model: "gpt-4o-mini",
      system: "s",
      messages: [{ role: "user" as const, content: "hi" }],
      tools: [],
      maxTokens: 100,
      timeoutMs: 10_000,
    };
    provider.script(
      "openai",
      openAiAnswer({ text: "one" }, { prompt_tokens: 1000, completion_tokens: 100 }),
      openAiAnswer({ text: "two" }, { prompt_tokens: 1000, completion_tokens: 100 }),
    );
    // The same call twice: a retry after the first attempt's answer was lost.
    await mockContext(1).run(agentModelCall, deps, input);
    await mockContext(2).run(agentModelCall, deps, input);
    expect(provider.calls).toHaveLength(2);

    const rows = await prisma.modelUsage.findMany({ where: { agentRunId } });
    const mini = DEFAULT_PRICES.find((p) => p.model === "gpt-4o-mini")!;
    const cost = (1000 * mini.input_per_mtok + 100 * mini.output_per_mtok) / 1_000_000;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ workspaceId, agentStep: 1, inputTokens: 1000, outputTokens: 100, flowId: null });
    expect(Number(rows[0]!.cost)).toBeCloseTo(cost, 12);

    const labels = `workspace="${workspaceId}",flow="",model="openai/gpt-4o-mini"`;
    const text = await metrics.registry.metrics();
    expect(text).toContain(`svc_ai_tokens_total{${labels},direction="input"} 1000`);
    expect(text).toContain(`svc_ai_tokens_total{${labels},direction="output"} 100`);
    const counted = new RegExp(`svc_ai_cost_usd_total\\{${labels}\\} ([0-9.e-]+)`).exec(text);
    expect(Number(counted?.[1])).toBeCloseTo(cost, 12);
  });
});
