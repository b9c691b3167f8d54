import { Context } from "@temporalio/activity";
import {
  NODE_TEST_MAX_LOGS,
  type NodeTestInput,
  type NodeTestLogEntry,
  type NodeTestResult,
} from "../../../core/contracts/node-test.js";
import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { handlingOf } from "../../../core/flows/plan.js";
import type { NodeEnv } from "../../../core/nodes/define-node.js";
import { nodeBehaviour } from "./node-behaviour.js";
import { definitionOf, type NodeActivityParts, toFailure } from "./node-parts.js";

type TestParts = Parameters<typeof nodeBehaviour>[0] & Pick<NodeActivityParts, "clock" | "nodes">;

/**
 * A test run of one node (core/contracts/node-test.ts): its config rendered against the sample
 * input and checked, then its behaviour once; nothing recorded, its log entries collected.
 */
export async function testNode(parts: TestParts, test: NodeTestInput): Promise<NodeTestResult> {
  const { clock } = parts;
  const startedAt = clock.now();
  const logs = collectedLogs();
  const args = testRunInput(parts, test, startedAt);
  const ended = (result: Pick<NodeTestResult, "status" | "output" | "branch" | "error">): NodeTestResult => ({
    ...result,
    logs: logs.entries(),
    duration_ms: Math.max(0, clock.now().getTime() - startedAt.getTime()),
  });
  try {
    const result = await nodeBehaviour(parts, args, {
      attempt: 1,
      signal: Context.current().cancellationSignal,
      log: logs.log,
    });
    return ended({ status: "success", output: result.output ?? null, branch: result.branch ?? null, error: null });
  } catch (error) {
    const failure = toFailure(error);
    return ended({
      status: "failed",
      output: null,
      branch: null,
      error: { message: failure.message, type: failure.type ?? null },
    });
  }
}

/** The node as a run would hand it to its activity: the sample input is its input and the trigger's. */
function testRunInput(
  { nodes }: Pick<NodeActivityParts, "nodes">,
  test: NodeTestInput,
  startedAt: Date,
): NodeActivityInput {
  return {
    runId: test.testId,
    workspaceId: test.workspaceId,
    flowId: test.flowId ?? "",
    nodeId: test.nodeId,
    type: test.type,
    handling: handlingOf(definitionOf(nodes, test.type)),
    config: test.config,
    input: test.input,
    upstream: {},
    trigger: test.input,
    run: { id: test.testId, flow_id: test.flowId ?? "", version: 0, started_at: startedAt.toISOString() },
  };
}

/** The test run's log: its first NODE_TEST_MAX_LOGS entries, and a count of those left out. */
function collectedLogs(): { log: NodeEnv["log"]; entries: () => NodeTestLogEntry[] } {
  const logs: NodeTestLogEntry[] = [];
  let dropped = 0;
  return {
    log: async (level, message, data) => {
      if (logs.length >= NODE_TEST_MAX_LOGS) dropped++;
      else logs.push({ level, message: String(message).slice(0, 10_000), ...(data === undefined ? {} : { data }) });
    },
    entries: () => (dropped > 0 ? [...logs, { level: "warn", message: `${dropped} more log entries left out` }] : logs),
  };
}
