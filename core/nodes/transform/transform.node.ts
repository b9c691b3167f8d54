import { z } from "zod";
import { JsSandboxError } from "../../sandbox/js-sandbox.contract.js";
import { defineNode, type NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";

// The expression runs in a sandbox process, not on the event loop of the worker (or of the API,
// whose in-process worker runs local nodes): its limit bounds how long it holds one of the pool's
// few processes while its workspace's other evaluations wait, 10 s at most.
const MAX_TIME_LIMIT_MS = 10_000;

const cancelled = () => new NodeError("The run was cancelled", { retryable: false });

/**
 * The expression's failures would fail the same way again (a time or memory limit included: it is
 * the expression's, not a lost worker's); only the sandbox's own may not.
 */
function evaluationFailure(error: unknown, env: NodeEnv): unknown {
  if (error instanceof JsSandboxError) {
    return new NodeError(error.message, {
      retryable: error.failure === "internal",
      details: { failure: error.failure, ...error.details },
    });
  }
  return env.signal.aborted ? cancelled() : error;
}

export const transformNode = defineNode({
  type: "transform",
  version: 1,
  name: "Transform",
  category: "data",
  description:
    "Evaluates a JSONata expression against the node's input; its result is the output. " +
    "$run holds the run's id, flow_id, node_id and attempt.",
  kind: "activity",
  execution: "local",
  pure: true,
  config: z.object({
    expression: z
      .string()
      .min(1)
      .max(100_000)
      .meta({ label: "Expression", code: true, placeholder: '{ "total": $sum(items.(price * quantity)) }' }),
    time_limit_ms: z.number().int().min(1).max(MAX_TIME_LIMIT_MS).default(1000).meta({ label: "Time limit (ms)" }),
  }),
  async execute(input, config, env) {
    if (!env.sandbox)
      throw new NodeError("This runtime has no sandbox for expressions (env.sandbox)", { retryable: false });
    if (env.signal.aborted) throw cancelled();
    const run = { id: env.run.id, flow_id: env.run.flowId, node_id: env.run.nodeId, attempt: env.run.attempt };
    try {
      return await env.sandbox.evaluateJsonata(config.expression, input, {
        timeLimitMs: config.time_limit_ms,
        bindings: { run },
      });
    } catch (error) {
      throw evaluationFailure(error, env);
    }
  },
  // Per item: the expression on each item (its input), `$item_index` its place; one sandbox
  // message for a chunk of items, the longest time limit of theirs for each.
  async executeEach(items, env) {
    if (!env.sandbox)
      throw new NodeError("This runtime has no sandbox for expressions (env.sandbox)", { retryable: false });
    if (env.signal.aborted) throw cancelled();
    const run = { id: env.run.id, flow_id: env.run.flowId, node_id: env.run.nodeId, attempt: env.run.attempt };
    const [first] = items;
    try {
      const outcomes = await env.sandbox.evaluateJsonataEach(
        first!.config.expression,
        items.map((item) => item.input),
        {
          timeLimitMs: Math.max(...items.map((item) => item.config.time_limit_ms)),
          bindings: { run },
          firstIndex: first!.index,
        },
      );
      return outcomes.map((outcome) =>
        "error" in outcome ? { error: evaluationFailure(outcome.error, env) } : outcome,
      );
    } catch (error) {
      throw evaluationFailure(error, env);
    }
  },
});
