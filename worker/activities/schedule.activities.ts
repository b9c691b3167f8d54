import { derivedId } from "../../lib/ids.js";
import { ApplicationFailure, Context, log } from "@temporalio/activity";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import type { RunFlowInput } from "../../core/contracts/run-flow.js";
import type { StartScheduledRunInput } from "../../core/contracts/scheduled-run.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../core/errors.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { childRunInput, startChildRuns, type ChildRunsDeps } from "../../core/runs/start/child-runs.js";
import type { PinnedFlow } from "../../core/runs/start/pinned-flow.js";

/** One fire of a schedule makes one run: the id derives from the fire, so a retried attempt finds it. */
const scheduledRunId = (fireId: string) => derivedId("run", ["schedule", fireId]);

/** The flow no longer starts with a schedule (its schedule is being removed): the fire is skipped. */
class NotScheduled extends Error {}

function requireSchedule(flow: PinnedFlow) {
  if (!flow.definition.nodes.some((node) => node.type === "schedule")) throw new NotScheduled();
}

export function createScheduleActivities({
  prisma,
  clock,
  nodes,
  metrics,
  config,
}: {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: Pick<Config, "SVC_ENCRYPTION_KEY" | "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS">;
  metrics?: Pick<WorkerMetrics, "runsStarted">;
}) {
  const childRuns: ChildRunsDeps = {
    clock,
    nodes,
    seal: createJsonSeal(config.SVC_ENCRYPTION_KEY),
    limits: config,
    warn: (message, fields) => log.warn(message, fields),
  };
  return {
    /**
     * Records the run of one schedule fire, pinned to the flow's version at fire time, with
     * run.started in the same commit (a retried attempt finds it, at the version it pinned). Skipped
     * when the flow is gone, inactive or no longer scheduled (the schedule is being paused or removed).
     */
    async startScheduledRun(args: StartScheduledRunInput): Promise<{ run: RunFlowInput } | { skipped: string }> {
      const firedAt = clock.now();
      const input = { scheduled_at: args.scheduledAt, fired_at: firedAt.toISOString(), schedule_id: args.fireId };
      const started = await prisma
        .$transaction((tx) =>
          startChildRuns(tx, childRuns, {
            workspaceId: args.workspaceId,
            flowId: args.flowId,
            trigger: "schedule",
            runs: [{ id: scheduledRunId(args.fireId), input }],
            startedAt: firedAt,
            taskQueue: Context.current().info.taskQueue,
            check: requireSchedule,
          }),
        )
        .catch((error: unknown) => {
          if (error instanceof FlowNotFound) return { skipped: "the flow no longer exists" };
          if (error instanceof FlowInactive) return { skipped: `the flow is ${error.flowStatus}` };
          if (error instanceof NotScheduled) return { skipped: "the flow no longer starts with a schedule" };
          if (error instanceof InvalidPlan) {
            throw ApplicationFailure.nonRetryable(`The flow cannot run here: ${error.reason}`, "FlowNotRunnable");
          }
          throw error;
        });
      if ("skipped" in started) return started;
      if (started.recorded > 0) metrics?.runsStarted.inc({ trigger: "schedule" });
      return { run: childRunInput(started) };
    },
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
