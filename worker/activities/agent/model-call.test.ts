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
import {
  anthropicAnswer,
  openAiAnswer,
  providerFailure,
  startFakeProvider,
} from "../../../test/helpers/fake-llm-provider.js";
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

  describe("model fallback", () => {
    const PRIMARY_KEY = "sk-agent-primary-secret-3c3c";
    const FALLBACK_KEY = "sk-ant-agent-fallback-secret-4d4d";
    // The call's last attempt under the agent's policy (6), or an earlier one.
    const attemptOf = (attempt: number) =>
      new MockActivityEnvironment(
        { attempt, retryPolicy: { maximumAttempts: 6 } },
        { logger: new DefaultLogger("ERROR", () => undefined) },
      );
    const setUp = async (name: string) => {
      const prisma = testPrisma();
      const user = await createTestUser(name);
      const workspaceId = user.workspace.workspaceId;
      const settings = resolveAgentSettings(
        { agent: "assistant", instructions: "hi", model: "gpt-test" },
        { provider: "openai", model: "gpt-test" },
      );
      const agentRunId = newId("agr");
      await recordAgentRunStart(
        { prisma, clock: systemClock, seal: testSeal },
        { id: agentRunId, workspaceId, settings },
      );
      const deps = {
        prisma,
        clock: systemClock,
        seal: testSeal,
        models: createLanguageModels(
          testConfig({ OPENAI_BASE_URL: `${provider.url}/v1`, ANTHROPIC_BASE_URL: provider.url }),
        ),
        apiKeyFor: async (_workspace: string, which: string, credentialId?: string) =>
          credentialId === "cred_" + "f".repeat(24) ? FALLBACK_KEY : which === "openai" ? PRIMARY_KEY : undefined,
        metrics: createWorkerMetrics(),
      };
      const input = {
        agentRunId,
        workspaceId,
        number: 1,
        provider: "openai" as const,
        model: "gpt-test",
        system: "s",
        messages: [{ role: "user" as const, content: "hi" }],
        tools: [],
        maxTokens: 100,
        timeoutMs: 10_000,
        fallbacks: [{ provider: "anthropic" as const, model: "claude-test", credential_id: "cred_" + "f".repeat(24) }],
      };
      return { prisma, deps, input, agentRunId };
    };

    it("calls the fallback when the primary's last attempt answers 429, records it on the step, counts its cost once", async () => {
      const { prisma, deps, input, agentRunId } = await setUp("fallback-429");
      provider.reset();
      provider.script(
        "openai",
        providerFailure("openai", 429, "Rate limit reached"),
        providerFailure("openai", 429, "Rate limit reached"),
      );
      provider.script("anthropic", anthropicAnswer({ text: "fallback answer" }));
      // An attempt with attempts left fails as before, for Temporal to retry the primary.
      await expect(attemptOf(5).run(agentModelCall, deps, input)).rejects.toThrow(/429 Rate limit reached/);
      expect(provider.calls.map((c) => c.protocol)).toEqual(["openai"]);

      const result = (await attemptOf(6).run(agentModelCall, deps, input)) as { text: string };
      expect(result.text).toBe("fallback answer");
      expect(provider.calls.map((c) => c.protocol)).toEqual(["openai", "openai", "anthropic"]);
      const fallbackCall = provider.calls[2]!;
      expect(fallbackCall.headers["x-api-key"] ?? fallbackCall.headers.authorization).toMatch(
        new RegExp(`^(Bearer )?${FALLBACK_KEY}$`),
      );

      const steps = await prisma.agentStep.findMany({ where: { agentRunId } });
      expect(steps).toHaveLength(1);
      const output = testSeal.open(steps[0]!.output as never);
      expect(output).toMatchObject({
        text: "fallback answer",
        fallback: {
          provider: "anthropic",
          model: "claude-test",
          tried: [{ provider: "openai", model: "gpt-test", error: expect.stringMatching(/429 Rate limit reached/) }],
        },
      });
      const rows = await prisma.modelUsage.findMany({ where: { agentRunId } });
      expect(rows.map((row) => [row.provider, row.model])).toEqual([["anthropic", "claude-test"]]);
      const recorded = JSON.stringify([steps, output, rows]);
      expect(recorded).not.toContain(PRIMARY_KEY);
      expect(recorded).not.toContain(FALLBACK_KEY);
    });

    it("does not fall back on a 400, even on the last attempt", async () => {
      const { prisma, deps, input, agentRunId } = await setUp("fallback-400");
      provider.reset();
      provider.script("openai", providerFailure("openai", 400, "Invalid request: bad tools"));
      await expect(attemptOf(6).run(agentModelCall, deps, input)).rejects.toThrow(/400 Invalid request/);
      expect(provider.calls.map((c) => c.protocol)).toEqual(["openai"]);
      const steps = await prisma.agentStep.findMany({ where: { agentRunId } });
      expect(steps.map((step) => testSeal.openText(step.error as never))).toEqual([
        expect.stringMatching(/400 Invalid request/),
      ]);
      expect(await prisma.modelUsage.count({ where: { agentRunId } })).toBe(0);
    });
  });
});
