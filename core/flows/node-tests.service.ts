// The editor's "Test this node": one node's behaviour on a sample input, run once by a worker in a
// workflow of its own (worker/workflows/node-test.workflow.ts), answered when it ends. Nothing is
// recorded; the node's side effects (a request it sends, a key it writes) do happen, as in n8n's
// "Execute step".
import { randomUUID } from "node:crypto";
import { WorkflowFailedError, type Client } from "@temporalio/client";
import type { Config } from "../../lib/config.js";
import type { Logger } from "../../lib/logger.js";
import {
  NODE_TEST_ID_PREFIX,
  NODE_TEST_WORKFLOW,
  type NodeTestInput,
  type NodeTestResult,
} from "../contracts/node-test.js";
import { startWorkflowOrRefusal, temporalRefusal } from "../engine/temporal-start.js";
import { DomainError, domainErrorClass } from "../errors.js";
import type { NodeRegistry } from "../nodes/registry.js";
import { handlingOf } from "./plan.js";

/** Node handlings a test can run alone: the others wait (delay, wait) or start runs (loop, agent). */
const TESTABLE = new Set(["trigger", "activity", "condition", "branch", "merge"]);
/** How long a test may take, its worker's pick-up included (its activity has 60 s). */
const TEST_TIMEOUT_MS = 75_000;

export class NodeTypeUnknown extends DomainError {
  override name = "NodeTypeUnknown";
  constructor(type: string) {
    super("invalid", "unknown_node_type", `No node type "${type}" in this installation (GET /api/nodes lists them)`);
  }
}

export class NodeNotTestable extends DomainError {
  override name = "NodeNotTestable";
  constructor(type: string, handling: string) {
    super(
      "invalid",
      "node_not_testable",
      `A ${type} node cannot be tested alone (it ${handling === "delay" || handling === "wait" ? "waits" : "starts runs of its own"}): run the flow`,
    );
  }
}

export const NodeTestTimedOut = domainErrorClass(
  "NodeTestTimedOut",
  "unavailable",
  "node_test_timeout",
  `No worker finished the test within ${TEST_TIMEOUT_MS / 1000} s`,
  5,
);

export interface NodeTestRequest {
  type: string;
  config: Record<string, unknown>;
  input?: unknown;
  node_id?: string;
  flow_id?: string;
}

export function createNodeTestService(deps: {
  temporal: Client;
  nodes: NodeRegistry;
  logger: Pick<Logger, "error">;
  config: Pick<Config, "TEMPORAL_TASK_QUEUE">;
  prepareNamespace?: () => Promise<void>;
}) {
  return {
    /** The test's answer, with its workflow's id (`test_id`: where the Temporal UI shows it). */
    async test(workspaceId: string, request: NodeTestRequest): Promise<NodeTestResult & { test_id: string }> {
      const definition = deps.nodes.get(request.type);
      if (!definition) throw new NodeTypeUnknown(request.type);
      const handling = handlingOf(definition);
      if (!TESTABLE.has(handling)) throw new NodeNotTestable(request.type, handling);
      const testId = `${NODE_TEST_ID_PREFIX}${randomUUID().replaceAll("-", "")}`;
      const input: NodeTestInput = {
        testId,
        workspaceId,
        flowId: request.flow_id ?? null,
        nodeId: request.node_id ?? "test",
        type: request.type,
        config: request.config,
        input: request.input ?? null,
      };
      const refusal = await startWorkflowOrRefusal({
        temporal: deps.temporal,
        prepareNamespace: deps.prepareNamespace,
        workflowId: testId,
        start: (client) =>
          client.workflow.start(NODE_TEST_WORKFLOW, {
            workflowId: testId,
            taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
            args: [input],
            workflowExecutionTimeout: TEST_TIMEOUT_MS,
          }),
        what: "The node test could not be started",
        extra: { node_test_id: testId },
        logger: deps.logger,
      });
      if (refusal) throw refusal;
      try {
        const result = (await deps.temporal.workflow.getHandle(testId).result()) as NodeTestResult;
        return { test_id: testId, ...result };
      } catch (error) {
        if (error instanceof WorkflowFailedError) throw new NodeTestTimedOut();
        throw temporalRefusal("The node test's result could not be read", error, { node_test_id: testId });
      }
    },
  };
}

export type NodeTestService = ReturnType<typeof createNodeTestService>;
