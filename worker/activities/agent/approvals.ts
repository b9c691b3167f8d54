// A call of a tool that needs approval: its pending wait (which the inbox lists) recorded before
// the workflow waits for a decision, and the wait closed with the agent's approval step after.
import { jsonValue } from "../../../lib/db.js";
import { derivedId } from "../../../lib/ids.js";
import type { ApprovalFinishInput, ApprovalStart, ApprovalStartInput } from "../../../core/contracts/agent-run.js";
import type { AgentRecords } from "./agent-context.js";
import { recordRefusedToolCall } from "./agent-steps.js";
import { argumentsOf, parseToolCall, toolError } from "./tool-arguments.js";

/** A tool call's approval wait derives its id from the agent run and step: a retried start finds it. */
export const approvalWaitId = (agentRunId: string, number: number) => derivedId("wait", ["agent", agentRunId, number]);

/** Who decides an agent's tool approvals: members who may decide waits (editors and up). */
const APPROVAL_DECIDERS = { minRole: "editor" } as const;

/**
 * Records the pending wait (once per step) with the tool and the arguments the model proposed.
 * Arguments the tool would refuse go back to the model at once (a tool step with the error):
 * nobody is asked to approve a call that cannot run.
 */
export async function agentStartApproval(deps: AgentRecords, input: ApprovalStartInput): Promise<ApprovalStart> {
  const problem = argumentsProblem(input);
  if (problem !== undefined) {
    const result = toolError(problem);
    await recordRefusedToolCall(deps, input, input.tool, result);
    return { result };
  }
  const { prisma, clock, seal } = deps;
  const now = clock.now();
  const waitId = approvalWaitId(input.agentRunId, input.number);
  await prisma.wait.createMany({
    data: [
      {
        id: waitId,
        workspaceId: input.workspaceId,
        agentRunId: input.agentRunId,
        reason: "tool",
        toolName: input.tool,
        toolArguments: seal.sealText(input.call.arguments),
        attempt: 1,
        mode: "approval",
        message: seal.sealText(`The agent ${input.agentId} asks to call ${input.tool}`),
        minRole: APPROVAL_DECIDERS.minRole,
        expiresAt: new Date(now.getTime() + input.timeoutMs),
        createdAt: now,
      },
    ],
    skipDuplicates: true,
  });
  const wait = await prisma.wait.findUniqueOrThrow({ where: { id: waitId }, select: { createdAt: true } });
  return { waitId, deciders: APPROVAL_DECIDERS, since: wait.createdAt.toISOString() };
}

/** Why the tool would refuse the arguments, or undefined; an MCP server's tool checks its schema itself. */
function argumentsProblem(input: ApprovalStartInput): string | undefined {
  if (!input.mcp) return parseToolCall(input).error;
  const args = argumentsOf(input.call.arguments);
  return typeof args === "string" ? `invalid arguments for ${input.call.name}: ${args}` : undefined;
}

/**
 * The end of an approval: closes its wait (only while pending) and records the decision as the
 * agent's approval step, in one commit; a repeated call changes nothing.
 */
export async function agentFinishApproval(
  { prisma, clock, seal }: AgentRecords,
  input: ApprovalFinishInput,
): Promise<void> {
  const now = clock.now();
  const startedAt = new Date(input.since);
  const decided = input.status === "decided";
  await prisma.$transaction([
    prisma.wait.updateMany({
      where: { id: input.waitId, status: "pending" },
      data: {
        status: input.status,
        decision: input.decision ?? null,
        comment: input.comment ?? null,
        decidedBy: input.decidedBy?.id ?? null,
        decidedByName: input.decidedBy?.name ?? null,
        decidedAt: input.decidedAt ? new Date(input.decidedAt) : null,
        closedAt: now,
      },
    }),
    prisma.agentStep.createMany({
      data: [
        {
          agentRunId: input.agentRunId,
          number: input.number,
          kind: "approval",
          name: input.tool,
          input: jsonValue(seal.seal({ id: input.call.id, arguments: input.call.arguments, wait_id: input.waitId })),
          output: decided ? jsonValue(seal.seal(approvalDecision(input))) : jsonValue(null),
          error: decided ? null : seal.sealText("No decision before the agent's time ran out"),
          startedAt,
          finishedAt: now,
          durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
        },
      ],
      skipDuplicates: true,
    }),
  ]);
}

/** The approval step's output: the decision as members read it in the step log. */
const approvalDecision = (input: ApprovalFinishInput) => ({
  decision: input.decision,
  comment: input.comment ?? null,
  decided_by: input.decidedBy ?? null,
  decided_at: input.decidedAt ?? null,
});
