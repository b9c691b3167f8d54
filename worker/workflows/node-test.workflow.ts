// A test run of one node (core/contracts/node-test.ts): one attempt of one activity, no retries.
import { proxyActivities } from "@temporalio/workflow";
import type { NodeTestActivities } from "../activities/node.activities.js";
import type { NodeTestInput, NodeTestResult } from "../../core/contracts/node-test.js";

const { testNode: runNodeTest } = proxyActivities<NodeTestActivities>({
  startToCloseTimeout: "60 seconds",
  retry: { maximumAttempts: 1 },
});

export async function testNode(input: NodeTestInput): Promise<NodeTestResult> {
  return runNodeTest(input);
}
