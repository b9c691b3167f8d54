// One tool call of an agent run (not flow.run). Bad names or arguments, and failures, go back to
// the model as errors; the step is recorded either way.
import type { ToolCallInput, ToolCallResult } from "../../../core/contracts/agent-run.js";
import type { AgentActivityContext } from "./agent-context.js";
import { recordAgentStep } from "./agent-steps.js";
import { runDirectTool } from "./direct-tools.js";
import { heartbeating } from "./heartbeating.js";
import { asContent, parseToolCall, toolError } from "./tool-arguments.js";

type ToolCallDeps = Pick<AgentActivityContext, "prisma" | "clock" | "seal" | "egress">;

export async function agentToolCall(deps: ToolCallDeps, input: ToolCallInput): Promise<ToolCallResult> {
  const startedAt = deps.clock.now();
  const parsed = parseToolCall(input);
  let result: ToolCallResult;
  if (parsed.error !== undefined) {
    result = toolError(parsed.error);
  } else {
    try {
      const output = await heartbeating(() => runDirectTool(deps, parsed.name, parsed.args, input));
      result = { content: asContent(output), isError: false };
    } catch (error) {
      result = toolError(`${input.call.name} failed: ${(error as Error).message}`);
    }
  }
  await recordAgentStep(deps, {
    agentRunId: input.agentRunId,
    number: input.number,
    kind: "tool",
    name: parsed.name ?? input.call.name,
    input: { id: input.call.id, arguments: input.call.arguments },
    output: result.isError ? null : { content: result.content },
    error: result.isError ? result.content : undefined,
    startedAt,
  });
  return result;
}
