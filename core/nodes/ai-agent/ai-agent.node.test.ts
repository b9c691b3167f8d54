import { describe, expect, it } from "vitest";
import { AGENT_TOOLS } from "../../contracts/agent-catalog.js";
import { aiAgentNode } from "./ai-agent.node.js";

describe("ai.agent node", () => {
  it("runs the assistant preset by default, with the server's provider, model and limits", () => {
    expect(aiAgentNode.config.parse({ instructions: "Triage {{ input.body }}" })).toEqual({
      agent: "assistant",
      instructions: "Triage {{ input.body }}",
    });
    expect(aiAgentNode).toMatchObject({ type: "ai.agent", kind: "control", category: "ai" });
  });

  it("accepts the catalog's tools and providers, and limits within bounds", () => {
    const tools = AGENT_TOOLS.map((tool) => tool.name);
    const config = aiAgentNode.config.parse({
      instructions: "x",
      agent: "support-bot_2",
      provider: "anthropic",
      tools,
      max_steps: 100,
      max_tokens: 100,
      timeout_ms: 1000,
    });
    expect(config.tools).toEqual(tools);
  });

  it.each([
    ["no instructions", {}],
    ["an agent name with capitals", { instructions: "x", agent: "Support" }],
    ["an unknown tool", { instructions: "x", tools: ["shell.exec"] }],
    ["an unknown provider", { instructions: "x", provider: "mistral" }],
    ["more than 100 steps", { instructions: "x", max_steps: 101 }],
    ["a time limit under a second", { instructions: "x", timeout_ms: 999 }],
  ])("refuses %s", (_label, config) => {
    expect(aiAgentNode.config.safeParse(config).success).toBe(false);
  });
});
