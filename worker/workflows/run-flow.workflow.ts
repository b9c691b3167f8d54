// A run of a flow: nodes start as soon as all their parents are resolved, so independent
// branches run in parallel. Each node is one activity named after its type; delays are durable
// timers; waits wait for an update (and a timer); loops and agents are child workflows.
// Deterministic: no I/O here, only activities, timers and handlers.
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  TimeoutFailure,
  type ActivityOptions,
  type LocalActivityOptions,
} from "@temporalio/workflow";
import type { NodeActivity, RunActivities } from "../activities/node.activities.js";
import { AGENT_RUN_WORKFLOW, type AgentRunWorkflow } from "../../core/contracts/agent-run.js";
import { operatorMemo, operatorText } from "../../core/contracts/operator-text.js";
import {
  NODE_ON_ERROR,
  NON_RETRYABLE_ERRORS,
  RUN_ENDS_IN_TEMPORAL_STATUS,
  RUN_FAILED_ERROR,
  agentSearchAttributes,
  runDisplay,
  runSearchAttributes,
  type AgentStart,
  type FinalizeRunInput,
  type LoopStart,
  type NodeActivityInput,
  type NodeErrorOutput,
  type NodePlan,
  type RunError,
  type RunFlowInput,
  type RunFlowResult,
  type StepRecord,
} from "../../core/contracts/run-flow.js";
import { WAIT_REFUSALS, WAIT_TIMED_OUT, type FinishWaitInput } from "../../core/contracts/waits.js";
import { buildGraph, topologicalOrder } from "../../core/flows/graph.js";
import { childRunOutcome } from "./child-run.js";
import { decisionOf, handleWaitDecisions, type WaitState } from "./wait-decisions.js";
import {
  ERROR_BRANCH,
  activeParents,
  edgeActive,
  incomingEdges,
  keyedInput,
  nodeInput,
  type NodeOutcome as Outcome,
} from "../../core/flows/node-input.js";
import { findTemplates } from "../../core/flows/template.js";

// Recording the run's progress: local activities (idempotent database writes, run by this
// worker without a round trip through the server), retried until the database answers.
const bookkeeping = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: "1 minute",
  localRetryThreshold: "10 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

/**
 * Nodes allowed more time than this get a heartbeat timeout: Temporal then notices a lost worker
 * within HEARTBEAT_TIMEOUT_MS rather than at the node's own timeout. It costs the server CPU per
 * activity (docs/engine.md, "Figures"), which quick nodes (the control, utility and trigger
 * nodes, a minute at most) are spared: their timeout is soon enough.
 * Cancellation reaches every running activity through its heartbeats either way.
 */
const HEARTBEAT_TIMEOUT_ABOVE_MS = 60_000;
const HEARTBEAT_TIMEOUT_MS = 20_000;

const retryOf = (plan: NodePlan): ActivityOptions["retry"] => ({
  maximumAttempts: plan.retry.max_attempts,
  initialInterval: plan.retry.initial_interval_ms,
  backoffCoefficient: plan.retry.backoff_coefficient,
  maximumInterval: plan.retry.max_interval_ms,
  nonRetryableErrorTypes: [...NON_RETRYABLE_ERRORS],
});

function activityOptions(plan: NodePlan): ActivityOptions {
  return {
    startToCloseTimeout: plan.timeoutMs,
    ...(plan.timeoutMs > HEARTBEAT_TIMEOUT_ABOVE_MS ? { heartbeatTimeout: HEARTBEAT_TIMEOUT_MS } : {}),
    retry: retryOf(plan),
    ...(plan.summary ? { summary: operatorText(plan.summary) } : {}),
  };
}

/**
 * A local node runs in the workflow task; a retry waits on a durable timer once its backoff
 * passes LOCAL_RETRY_THRESHOLD (before that, the worker waits in memory).
 */
const LOCAL_RETRY_THRESHOLD = "5 seconds";
function localActivityOptions(plan: NodePlan): LocalActivityOptions {
  return {
    startToCloseTimeout: plan.timeoutMs,
    localRetryThreshold: LOCAL_RETRY_THRESHOLD,
    retry: retryOf(plan),
    ...(plan.summary ? { summary: operatorText(plan.summary) } : {}),
  };
}

/** The message of the innermost cause of an activity or child failure. */
function rootMessage(error: unknown): { message: string; type?: string } {
  let current = error as { message?: string; cause?: unknown; type?: string } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return { message: current?.message ?? String(error), type: current?.type ?? undefined };
}

/** What a node whose failure is handled outputs: its error's message and type (Timeout for a timeout). */
function errorOutputOf(error: unknown, plan: NodePlan): NodeErrorOutput {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TimeoutFailure) {
      return { error: { message: `the node timed out (timeout_ms ${plan.timeoutMs})`, code: "Timeout" } };
    }
  }
  const { message, type } = rootMessage(error);
  return { error: { message, code: type ?? "Error" } };
}

export async function runFlow(run: RunFlowInput): Promise<RunFlowResult> {
  const { nodes, edges } = run.definition;
  const graph = buildGraph(nodes, edges);
  const order = topologicalOrder(graph);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const incoming = incomingEdges(nodes, edges);
  const outcomes = new Map<string, Outcome>();
  const inflight = new Set<string>();
  /** Resumes the scheduling loop once a node has settled. */
  let wake = () => {};
  const reused: FinalizeRunInput["reused"] = [];
  /** Successes whose step rows their activities wrote after answering (see NodeActivityResult.step). */
  const succeeded: StepRecord[] = [];
  /** Successes of local nodes whose rows nobody has written yet (see NodeActivityResult.unwritten). */
  let unwritten: StepRecord[] = [];
  /** Hands the unwritten rows to a writer: from then on they count as written after answering. */
  const handOver = () => {
    const rows = unwritten;
    unwritten = [];
    succeeded.push(...rows);
    return rows;
  };
  let failure: RunError | undefined;
  let cancelled = false;
  /** The last node's success ended the run record (see NodeActivityInput.endsRun). */
  let runEnded = false;

  /** Waits of wait nodes by wait id: decided through decideWaitUpdate. */
  const waits = new Map<string, WaitState>();
  handleWaitDecisions(waits);

  const outcomeOf = (id: string) => outcomes.get(id);
  const outputOf = (id: string) => (outcomes.get(id) as { output: unknown }).output;

  /** Nodes that never ran: skipped, or not reached after a failure or a cancellation. */
  const skippedNodes = () =>
    order
      .filter((id) => !outcomes.has(id) || outcomes.get(id)!.state === "skipped")
      .map((id) => ({ nodeId: id, type: run.plan[id]!.type }));

  /**
   * A node can end the run itself when it runs in one activity, is the only node left and no
   * other sink produced output: its success alone then decides the run's status and output.
   */
  function endsRun(id: string): NodeActivityInput["endsRun"] {
    const { handling } = run.plan[id]!;
    const alone =
      run.plan[id]!.execution !== "workflow" &&
      handling !== "delay" &&
      handling !== "wait" &&
      handling !== "loop" &&
      handling !== "agent" &&
      inflight.size === 0 &&
      graph.children.get(id)!.length === 0 &&
      order.every(
        (other) =>
          other === id ||
          (outcomes.has(other) && (outcomes.get(other)!.state !== "done" || graph.children.get(other)!.length > 0)),
      );
    if (!alone) return undefined;
    const written = succeeded.map(({ nodeId, attempt }) => ({ nodeId, attempt }));
    // Rows nobody has written go with the run's end (the run's bookkeeping writes them if it fails).
    const rows = unwritten.length > 0 ? { succeeded: handOver() } : {};
    return { skipped: skippedNodes().filter((node) => node.nodeId !== id), reused, written, ...rows };
  }

  function activityInput(id: string): NodeActivityInput {
    const node = byId.get(id)!;
    const plan = run.plan[id]!;
    const paths = findTemplates(node.config).flatMap((finding) => finding.paths);
    const upstream: Record<string, unknown> = {};
    for (const path of paths) {
      const target = path[1];
      if (path[0] === "nodes" && typeof target === "string" && outcomes.get(target)?.state === "done") {
        upstream[target] = outputOf(target);
      }
    }
    const merge = keyedInput(plan.handling);
    const edgesIn = incoming.get(id) ?? [];
    return {
      runId: run.runId,
      workspaceId: run.workspaceId,
      flowId: run.flowId,
      nodeId: id,
      type: plan.type,
      handling: plan.handling,
      config: node.config,
      // The API rebuilds this input for the step log with the same function (runs.service steps()).
      input: nodeInput(id, graph, edgesIn, merge, run.input, outcomeOf),
      upstream,
      ...(paths.some((path) => path[0] === "trigger") ? { trigger: run.input } : {}),
      run: { id: run.runId, flow_id: run.flowId, version: run.version, started_at: run.startedAt },
      ...(merge ? { parents: activeParents(edgesIn, outcomeOf) } : {}),
    };
  }

  async function runLoop(start: LoopStart): Promise<unknown[]> {
    const results: unknown[] = new Array(start.children.length);
    let next = 0;
    const lane = async () => {
      while (next < start.children.length) {
        const index = next++;
        const child = start.children[index]!;
        const result = await childRunOutcome(
          child.runId,
          executeChild(runFlow, {
            workflowId: child.runId,
            args: [
              {
                runId: child.runId,
                workspaceId: run.workspaceId,
                flowId: start.flow.id,
                flowName: start.flow.name,
                version: start.flow.version,
                definition: start.flow.definition,
                plan: start.flow.plan,
                input: child.item,
                startedAt: child.startedAt,
              },
            ],
            typedSearchAttributes: runSearchAttributes(run.workspaceId, start.flow.id),
            memo: operatorMemo({ flow_name: start.flow.name, parent_run_id: run.runId }),
            ...runDisplay({
              flowName: start.flow.name,
              version: start.flow.version,
              trigger: start.trigger ?? "loop",
              flowId: start.flow.id,
              workspaceId: run.workspaceId,
              parent: `run ${run.runId}`,
            }),
          }),
        );
        if (result.status !== "success") {
          const why = `${result.status}${result.error ? `: ${result.error.message}` : ""}`;
          // (A flow.call's one child is named as such; a loop's by its item.)
          throw start.single
            ? ApplicationFailure.nonRetryable(`flow ${start.flow.name} (run ${child.runId}) ${why}`, "FlowCallFailed")
            : ApplicationFailure.nonRetryable(`item ${index} (run ${child.runId}) ${why}`, "LoopItemFailed");
        }
        results[index] = result.output;
      }
    };
    await Promise.all(Array.from({ length: Math.min(start.concurrency, start.children.length) }, lane));
    return results;
  }

  type Activities = Record<string, NodeActivity> & RunActivities;

  /** A delay: its activity renders the duration, the workflow sleeps on a durable timer. */
  async function runDelay(id: string, args: NodeActivityInput, activities: Activities): Promise<Outcome> {
    const { attempt, durationMs } = await activities.delay(args);
    await sleep(durationMs);
    const output = await bookkeeping.completeStep({ runId: run.runId, nodeId: id, attempt, output: args.input });
    return { state: "done", output };
  }

  /**
   * A wait: its activity records the wait; the workflow then waits for a decision (an update),
   * a failure elsewhere in the run, a cancellation, or its timeout (a durable timer), and a
   * bookkeeping activity closes the wait with the node's step.
   */
  async function runWait(id: string, args: NodeActivityInput, activities: Activities): Promise<Outcome> {
    const name = byId.get(id)!.name;
    const start = await activities.wait(name ? { ...args, nodeName: name } : args);
    const wait: WaitState = { nodeId: id, start };
    waits.set(start.waitId, wait);
    const settled = () => wait.decision !== undefined || failure !== undefined;
    let decided: boolean;
    try {
      decided =
        start.timeoutMs === undefined ? (await condition(settled), true) : await condition(settled, start.timeoutMs);
    } catch (error) {
      // The run is being cancelled: its end closes the wait's record.
      wait.closed = true;
      throw error;
    }
    // Written even when the run is cancelled meanwhile: an accepted decision is recorded.
    const finish = (end: Omit<FinishWaitInput, "runId" | "nodeId" | "waitId" | "attempt" | "type">) =>
      CancellationScope.nonCancellable(() =>
        bookkeeping.finishWait({
          runId: run.runId,
          nodeId: id,
          waitId: start.waitId,
          attempt: start.attempt,
          type: args.type,
          ...end,
        }),
      );
    if (!decided) {
      wait.expired = true;
      if (start.onTimeout === "fail") {
        const message = `timed out after ${start.timeout}`;
        await finish({ status: "expired", step: { status: "failed", error: { message, type: WAIT_TIMED_OUT } } });
        throw ApplicationFailure.nonRetryable(message, WAIT_TIMED_OUT);
      }
      const timedOut = { timed_out: true, expired_at: new Date().toISOString() };
      const output = await finish({
        status: "expired",
        step: { status: "success", output: timedOut, branch: "timeout" },
      });
      return { state: "done", output, branch: "timeout" };
    }
    const decision = wait.decision;
    if (!decision) {
      wait.closed = true;
      const message = `the run failed at node ${failure?.node_id} while this node waited`;
      await finish({ status: "cancelled", step: { status: "failed", error: { message, type: WAIT_REFUSALS.closed } } });
      throw ApplicationFailure.nonRetryable(message, WAIT_REFUSALS.closed);
    }
    const verdict = decisionOf(decision);
    const decidedBy = decision.decidedBy && { id: decision.decidedBy.id, name: decision.decidedBy.name };
    const output =
      start.mode === "approval"
        ? {
            decision: verdict,
            comment: decision.comment ?? null,
            decided_by: decidedBy ?? null,
            decided_at: decision.decidedAt,
          }
        : (decision.body ?? null);
    const stored = await finish({
      status: "decided",
      decision: verdict,
      ...(decision.comment === undefined ? {} : { comment: decision.comment }),
      ...(decidedBy ? { decidedBy } : {}),
      decidedAt: decision.decidedAt,
      step: { status: "success", output, branch: verdict },
    });
    wait.recorded = { waitId: start.waitId, decision: verdict, decidedAt: decision.decidedAt };
    return { state: "done", output: stored, branch: verdict };
  }

  /** An agent: its activity records the agent run, which then runs as a child workflow. */
  async function runAgent(id: string, args: NodeActivityInput, activities: Activities): Promise<Outcome> {
    const start = (await activities[args.type]!(args)) as unknown as AgentStart;
    const result = await executeChild<AgentRunWorkflow>(AGENT_RUN_WORKFLOW, {
      workflowId: start.agent.agentRunId,
      args: [start.agent],
      typedSearchAttributes: agentSearchAttributes(run.workspaceId),
      memo: operatorMemo({ agent_id: start.agent.agentId, parent_run_id: run.runId }),
    });
    if (result.status !== "success") {
      throw ApplicationFailure.nonRetryable(
        `agent run ${result.agentRunId} ${result.status} (${result.reason})${result.error ? `: ${result.error}` : ""}`,
        "AgentFailed",
      );
    }
    const output = await bookkeeping.completeStep({
      runId: run.runId,
      nodeId: id,
      attempt: start.attempt,
      output: {
        agent_run_id: result.agentRunId,
        answer: result.answer,
        reason: result.reason,
        steps: result.steps,
        usage: result.usage,
      },
    });
    return { state: "done", output };
  }

  /** A loop (or a flow.call): its activity records one child run per item, which run as child workflows. */
  async function runLoopNode(id: string, args: NodeActivityInput, activities: Activities): Promise<Outcome> {
    const start = await activities.loop(args);
    const outputs = await runLoop(start);
    const output = await bookkeeping.completeStep({
      runId: run.runId,
      nodeId: id,
      attempt: start.attempt,
      output: start.single ? outputs[0] : outputs,
    });
    return { state: "done", output };
  }

  /**
   * A node the workflow resolves itself (a trigger: its output is the run's input), at the time
   * of this workflow task; its step row goes with the next write, as a local node's does.
   */
  function resolveInWorkflow(id: string): Promise<Outcome> {
    const { input } = activityInput(id);
    const now = new Date().toISOString();
    unwritten.push({
      nodeId: id,
      type: run.plan[id]!.type,
      attempt: 1,
      startedAt: now,
      finishedAt: now,
      output: input,
    });
    return Promise.resolve({ state: "done", output: input });
  }

  function runNode(id: string, ending: NodeActivityInput["endsRun"], carried?: StepRecord[]): Promise<Outcome> {
    const plan = run.plan[id]!;
    if (plan.execution === "workflow") return resolveInWorkflow(id);
    const args = { ...activityInput(id), ...(ending ? { endsRun: ending } : {}), ...(carried ? { carried } : {}) };
    const activities =
      plan.execution === "local"
        ? proxyLocalActivities<Activities>(localActivityOptions(plan))
        : proxyActivities<Activities>(activityOptions(plan));
    if (plan.handling === "delay") return runDelay(id, args, activities);
    if (plan.handling === "wait") return runWait(id, args, activities);
    if (plan.handling === "agent") return runAgent(id, args, activities);
    if (plan.handling === "loop") return runLoopNode(id, args, activities);
    return activities[plan.type]!(args).then((result): Outcome => {
      if (result.runEnded) runEnded = true;
      if (result.step) {
        const record = { nodeId: id, type: plan.type, ...result.step, output: result.output, branch: result.branch };
        (result.unwritten ? unwritten : succeeded).push(record);
      }
      return {
        state: "done",
        output: result.output,
        ...(result.branch === undefined ? {} : { branch: result.branch }),
      };
    });
  }

  /** Delays, waits, loops and agents: started by an activity, then waited on (a timer, an update, children). */
  const waitsAfterStart = (id: string) => ["delay", "wait", "loop", "agent"].includes(run.plan[id]!.handling);
  /** A regular activity: not local, not resolved by the workflow. */
  const regular = (id: string) => run.plan[id]!.execution === undefined;
  /** A regular node whose activity can write earlier rows as it starts. */
  const carriesRows = (id: string) => regular(id) && !waitsAfterStart(id);
  /** A node the workflow waits on beyond this workflow task: a regular activity, a timer, a child. */
  const waitsOnServer = (id: string) => regular(id) || waitsAfterStart(id);

  // The SDK records a stack trace for every promise a workflow creates (for its stack-trace
  // query): a node settles through one `then` and the loop waits on one promise per turn, rather
  // than through async wrappers, then/finally chains and Promise.race.
  function launch(id: string, ending: NodeActivityInput["endsRun"], carried?: StepRecord[]) {
    inflight.add(id);
    const settle = (outcome: Outcome) => {
      outcomes.set(id, outcome);
      inflight.delete(id);
      wake();
    };
    let step: Promise<Outcome>;
    try {
      step = runNode(id, ending, carried);
    } catch (error) {
      step = Promise.reject(error as Error);
    }
    step.then(settle, (error: unknown) => {
      if (isCancellation(error)) cancelled = true;
      else if (handlesFailure(id)) {
        handledFailure(id, error).then(settle, (unrecorded: unknown) => {
          if (isCancellation(unrecorded)) cancelled = true;
          else failure ??= { node_id: id, ...rootMessage(unrecorded) };
          settle({ state: "failed" });
        });
        return;
      } else failure ??= { node_id: id, ...rootMessage(error) };
      settle({ state: "failed" });
    });
  }

  /**
   * Whether the node's failure (after its last attempt) is handled by its on_error rather than
   * failing the run. Not once the run is failing or cancelled anyway. Histories recorded before
   * on_error existed never reach the patch (their plans have no onError).
   */
  const handlesFailure = (id: string) =>
    run.plan[id]!.onError !== undefined && !failure && !cancelled && patched(NODE_ON_ERROR);

  /**
   * A handled failure: the node's last attempt stays a failed step, which also records what the
   * node passes on, `{ error: { message, code } }`, as its output; with on_error "branch" the
   * node takes its error handle (only its "error" edges run).
   */
  async function handledFailure(id: string, error: unknown): Promise<Outcome> {
    const plan = run.plan[id]!;
    const output = errorOutputOf(error, plan);
    const branch = plan.onError === "branch" ? { branch: ERROR_BRANCH } : {};
    await CancellationScope.nonCancellable(() =>
      bookkeeping.recordHandledFailure({
        runId: run.runId,
        nodeId: id,
        type: plan.type,
        onError: plan.onError!,
        output,
        ...branch,
      }),
    );
    return { state: "done", output, ...branch };
  }

  // Start every node whose parents are resolved; a node none of whose incoming edges is active
  // (a parent skipped, or a branch not taken) is skipped. After a failure or a cancellation no
  // node starts; those running finish first.
  for (;;) {
    if (!failure && !cancelled) {
      const ready: string[] = [];
      for (const id of order) {
        if (outcomes.has(id) || inflight.has(id)) continue;
        const parents = graph.parents.get(id)!;
        if (!parents.every((parent) => outcomes.has(parent))) continue;
        const reuse = run.reuse?.[id];
        if (reuse) {
          outcomes.set(id, { state: "done", output: reuse.output, ...(reuse.branch ? { branch: reuse.branch } : {}) });
          reused.push({ nodeId: id, type: run.plan[id]!.type, output: reuse.output, branch: reuse.branch });
        } else if (parents.length === 0 || (incoming.get(id) ?? []).some((edge) => edgeActive(edge, outcomeOf))) {
          ready.push(id);
        } else outcomes.set(id, { state: "skipped" });
      }
      for (const id of ready) {
        // The first regular node started writes the rows of the local nodes before it.
        const carried = unwritten.length > 0 && carriesRows(id) ? handOver() : undefined;
        launch(id, ready.length === 1 ? endsRun(id) : undefined, carried);
      }
      // Rows of local nodes are not left unwritten while the run waits on the server (a regular
      // node, a timer, a child): they are written now, in this workflow task.
      if (unwritten.length > 0 && [...inflight].some(waitsOnServer)) {
        const rows = handOver();
        void bookkeeping.recordSteps({ runId: run.runId, steps: rows }).catch(() => undefined);
      }
    }
    if (inflight.size === 0) break;
    // Set before any node can settle: nothing runs between here and the launches above.
    await new Promise<void>((resolve) => (wake = resolve));
  }

  const status = cancelled ? "cancelled" : failure ? "failed" : "success";
  const sinks = order.filter((id) => graph.children.get(id)!.length === 0 && outcomes.get(id)?.state === "done");
  const output =
    status !== "success"
      ? undefined
      : sinks.length === 1
        ? outputOf(sinks[0]!)
        : Object.fromEntries(sinks.map((id) => [id, outputOf(id)]));
  const error = cancelled ? { message: "The run was cancelled" } : failure;

  // Recorded even when the run is being cancelled; already recorded when the last node ended it.
  const finalOutput =
    runEnded && status === "success"
      ? output
      : await CancellationScope.nonCancellable(() =>
          bookkeeping.finalizeRun({
            runId: run.runId,
            status,
            output,
            error,
            skipped: skippedNodes(),
            reused,
            succeeded: [...succeeded, ...unwritten],
          }),
        );
  const result: RunFlowResult = {
    runId: run.runId,
    status,
    ...(status === "success" ? { output: finalOutput } : {}),
    ...(error ? { error } : {}),
  };
  if (status !== "success" && patched(RUN_ENDS_IN_TEMPORAL_STATUS)) {
    // After the record: Temporal's status says what the run's record says.
    if (status === "cancelled") throw new CancelledFailure("The run was cancelled");
    throw ApplicationFailure.create({
      type: RUN_FAILED_ERROR,
      message: error?.node_id ? `node ${error.node_id}: ${error.message}` : (error?.message ?? "The run failed"),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}
