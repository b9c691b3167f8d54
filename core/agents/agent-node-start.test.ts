import { describe, expect, it } from "vitest";
import { systemClock } from "../../lib/clock.js";
import { newId } from "../../lib/ids.js";
import { testPrisma, testSeal } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { AGENT_PRESETS } from "../contracts/agent-catalog.js";
import { aiAgentConfig } from "../nodes/ai-agent/ai-agent.node.js";
import { agentRunIdOf, startAgent } from "./agent-node-start.js";

describe("startAgent", () => {
  it("records the agent run of a step attempt from its preset and the server's defaults, once per attempt", async () => {
    const prisma = testPrisma();
    const user = await createTestUser("agent-start");
    const deps = {
      prisma,
      clock: systemClock,
      seal: testSeal,
      defaults: { provider: "openai" as const, model: "gpt-test" },
      limits: { RUN_TREE_MAX_DEPTH: 16, RUN_TREE_MAX_RUNS: 5000 },
    };
    const step = { runId: newId("run"), nodeId: "triage", workspaceId: user.workspace.workspaceId, attempt: 1 };
    const config = aiAgentConfig.parse({ instructions: "Triage ticket 7", max_steps: 3 });

    const agent = await startAgent(deps, step, config);
    const preset = AGENT_PRESETS.find((p) => p.id === "assistant")!;
    expect(agent).toMatchObject({
      agentRunId: agentRunIdOf(step.runId, "triage", 1),
      provider: "openai",
      model: "gpt-test",
      instructions: "Triage ticket 7",
      tools: preset.tools,
      limits: { max_steps: 3, max_tokens: preset.limits.max_tokens, timeout_ms: preset.limits.timeout_ms },
    });
    // A repeated call for the same attempt finds the run; the next attempt gets a run of its own.
    await startAgent(deps, step, config);
    await startAgent(deps, { ...step, attempt: 2 }, config);
    const runs = await prisma.agentRun.findMany({ where: { parentRunId: step.runId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => r.id).sort()).toEqual(
      [agentRunIdOf(step.runId, "triage", 1), agentRunIdOf(step.runId, "triage", 2)].sort(),
    );
    expect(runs[0]).toMatchObject({ agentId: "assistant", status: "running", workspaceId: step.workspaceId });
    expect(agent).not.toHaveProperty("fallbacks");
  });

  it("hands the node's fallbacks and credential to the agent run's workflow, as the API does", async () => {
    const user = await createTestUser("agent-start-fallbacks");
    const deps = {
      prisma: testPrisma(),
      clock: systemClock,
      seal: testSeal,
      defaults: { provider: "openai" as const, model: "gpt-test" },
      limits: { RUN_TREE_MAX_DEPTH: 16, RUN_TREE_MAX_RUNS: 5000 },
    };
    const step = { runId: newId("run"), nodeId: "triage", workspaceId: user.workspace.workspaceId, attempt: 1 };
    const fallbacks = [{ provider: "anthropic" as const, model: "claude-b", credential_id: `cred_${"a".repeat(24)}` }];
    const config = aiAgentConfig.parse({ instructions: "Triage", credential_id: `cred_${"b".repeat(24)}`, fallbacks });
    const agent = await startAgent(deps, step, config);
    expect(agent).toMatchObject({ credentialId: `cred_${"b".repeat(24)}`, fallbacks });
  });
});
