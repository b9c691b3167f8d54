// The last step of every start: the run's workflow, started on Temporal once its run is recorded.
// runFlowInput() gives the workflow its input; startRunWorkflow() starts it (the API's starts and
// the dispatcher's error flows; the worker's other runs start as child workflows); startWorkflow()
// ends the record of a run whose start Temporal refused.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../../lib/clock.js";
import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { Logger } from "../../../lib/logger.js";
import {
  RUN_FLOW_WORKFLOW,
  runDisplay,
  runSearchAttributes,
  type RunFlowInput,
  type RunTrigger,
} from "../../contracts/run-flow.js";
import { operatorMemo } from "../../contracts/operator-text.js";
import { runPriority } from "../../contracts/run-priority.js";
import { startWorkflowOrRefusal } from "../../engine/temporal-start.js";
import { concurrencyGateId, requestGateSlot } from "../../engine/concurrency-gates.js";
import { takeDbSlot, type SlotAsk } from "../../engine/concurrency-slots.js";
import type { RequestSlotInput } from "../../contracts/concurrency-gate.js";
import { gateSetting, renderConcurrencyKey } from "../../flows/concurrency-key.js";
import { fallbackPriority } from "../../flows/priority-template.js";
import type { BlobStore } from "../records/blobs.js";
import { finalizeRunRecord } from "../records/run-ends.js";
import type { PinnedFlow } from "./pinned-flow.js";

export interface WorkflowStartDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  blobs: BlobStore;
  logger: Logger;
  config: Pick<Config, "TEMPORAL_TASK_QUEUE">;
  /** Registers the runs' search attributes on the namespace (once; see AppDeps). */
  prepareNamespace?: () => Promise<void>;
  /** With a worker in this process: the client whose starts bring the first workflow task back. */
  eagerClient?: () => Client | undefined;
}

/**
 * The runFlow workflow's input for a run of `flow`, with its priority as its starter rendered it
 * (requiredPriority or fallbackPriority, core/flows/priority-template.ts), else rendered here (a
 * repeated start of a recorded run: its input rendered one when it was recorded).
 */
export function runFlowInput(flow: PinnedFlow, run: StartedRecord): RunFlowInput {
  return {
    runId: run.id,
    workspaceId: flow.workspaceId,
    flowId: flow.id,
    flowName: flow.name,
    version: flow.version,
    definition: flow.definition,
    plan: flow.plan,
    input: run.input,
    startedAt: run.startedAt.toISOString(),
    ...(run.reuse ? { reuse: run.reuse } : {}),
    ...(run.given ? { given: run.given } : {}),
    ...(run.debounce ? { debounce: run.debounce } : {}),
    priority: run.priority ?? fallbackPriority(flow.definition, run.input, () => undefined),
  };
}

/** A recorded run as its workflow's start needs it. */
type StartedRecord = {
  id: string;
  input: unknown;
  startedAt: Date;
  reuse?: RunFlowInput["reuse"];
  given?: RunFlowInput["given"];
  debounce?: RunFlowInput["debounce"];
  /** The priority its starter rendered (RunFlowInput.priority). */
  priority?: number;
};

/**
 * Starts the workflow of a run already recorded (its id is the run id, and only ever one
 * execution of it: a start that reaches Temporal twice, a late first try and a repeat, runs it
 * once). Undefined when it runs; otherwise the error, refused (nothing started) or unavailable
 * (the outcome is unknown), logged.
 */
export async function startRunWorkflow(
  deps: Pick<WorkflowStartDeps, "temporal" | "prepareNamespace" | "prisma"> & { logger: Pick<Logger, "error"> },
  run: RunFlowInput,
  {
    trigger,
    taskQueue,
    starter,
    slotTaken,
  }: {
    trigger: RunTrigger;
    taskQueue: string;
    starter?: Client;
    /** The run's start statement took its slot (true) or sent it to the gate (false): see startSlotAsk. */
    slotTaken?: boolean;
  },
) {
  // A debounced run asks its gate itself once its window closed, with the key of its last input.
  let slot = run.debounce ? undefined : slotRequest(run);
  // A free slot of a key nobody waits for is taken in the database: the run never meets the gate.
  // A throttled flow's starts all go through its gate (its window is the gate's alone).
  if (slot && !slot.throttle && (slotTaken ?? (await takeDbSlot(deps.prisma, slot)))) {
    run = { ...run, dbSlot: true };
    slot = undefined;
  }
  if (slot) run = { ...run, gateId: concurrencyGateId(run.flowId, slot.key) };
  const error = await startWorkflowOrRefusal({
    temporal: deps.temporal,
    starter,
    prepareNamespace: deps.prepareNamespace,
    workflowId: run.runId,
    start: (client) =>
      client.workflow.start(RUN_FLOW_WORKFLOW, {
        workflowId: run.runId,
        workflowIdReusePolicy: "REJECT_DUPLICATE",
        taskQueue,
        args: [run],
        typedSearchAttributes: runSearchAttributes(run.workspaceId, run.flowId),
        priority: runPriority(run),
        memo: operatorMemo({ flow_name: run.flowName, version: run.version }),
        ...runDisplay({ ...run, trigger }),
        // With a worker in this process, the run's first workflow task comes back with the start.
        ...(starter ? { requestEagerStart: true } : {}),
      }),
    what: "The run could not be started",
    extra: { run_id: run.runId },
    logger: deps.logger,
  });
  // Asked once the workflow runs, in the order runs are started. A request that does not reach
  // Temporal is the workflow's to repeat (it asks itself after a minute without a grant).
  if (!error && slot) {
    await requestGateSlot(deps.temporal, taskQueue, slot).catch((err: unknown) =>
      deps.logger.error({ err, run_id: run.runId }, "could not ask the run's concurrency gate for a slot"),
    );
  }
  return error;
}

/**
 * The slot the statement recording a run of `definition` takes for it (recordCheckedRunStart's
 * `slot`): none for a flow without concurrency, with a throttle (its gate counts every start),
 * a debounced run, or a key its input does not render.
 */
export function startSlotAsk(run: {
  runId: string;
  flowId: string;
  definition: RunFlowInput["definition"];
  input: unknown;
}): SlotAsk | undefined {
  const gate = gateSetting(run.definition);
  if (!gate || gate.throttle) return undefined;
  try {
    const key = renderConcurrencyKey(gate, run.input, gate.field);
    return { runId: run.runId, flowId: run.flowId, key, limit: gate.limit };
  } catch {
    return undefined;
  }
}

/** The slot a run of a flow with concurrency asks for; none when its key does not render (the workflow fails the run). */
function slotRequest(run: RunFlowInput): RequestSlotInput | undefined {
  const gate = gateSetting(run.definition);
  if (!gate) return undefined;
  try {
    const key = renderConcurrencyKey(gate, run.input, gate.field);
    const { runId, flowId, workspaceId, startedAt } = run;
    return {
      runId,
      flowId,
      workspaceId,
      startedAt,
      limit: gate.limit,
      ...(gate.throttle ? { throttle: gate.throttle } : { dbCounted: true }),
      key,
    };
  } catch {
    return undefined;
  }
}

/**
 * Starts the workflow of the recorded run `run` of `flow` (its id is the run id, and only ever
 * one execution of it). A refusal ends the run as failed and frees its key, since nothing
 * started; an unknown outcome (Temporal unreachable mid-start) leaves it running, for a repeat
 * with its key to start it, or for the reconciler to end it if its workflow never started.
 * Either way the caller gets the error.
 */
export async function startWorkflow(
  deps: WorkflowStartDeps,
  flow: PinnedFlow,
  run: StartedRecord,
  { trigger, eager = true, slotTaken }: { trigger: RunTrigger; eager?: boolean; slotTaken?: boolean },
): Promise<void> {
  const { prisma, clock, config } = deps;
  const input = runFlowInput(flow, run);
  const error = await startRunWorkflow(deps, input, {
    trigger,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    starter: eager ? deps.eagerClient?.() : undefined,
    slotTaken,
  });
  if (!error) return;
  if (error.refused) {
    await finalizeRunRecord(
      { prisma, clock, blobs: deps.blobs },
      { runId: run.id, status: "failed", error: { message: error.message }, skipped: [], reused: [] },
      { releaseKey: true },
    );
  } else {
    // The client is told to repeat in a few seconds: the reconciler counts its patience from
    // this answer, not from the record (a start that waits out an outage takes 10 to 20 s).
    await prisma.run
      .updateMany({ where: { id: run.id, status: "running" }, data: { startAttemptedAt: clock.now() } })
      .catch((err: unknown) => deps.logger.warn({ err, run_id: run.id }, "could not note the start's unknown outcome"));
  }
  throw error;
}
