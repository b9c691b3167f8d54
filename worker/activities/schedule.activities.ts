import { derivedId } from "../../lib/ids.js";
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import type { RunFlowInput } from "../../core/contracts/run-flow.js";
import type { StartScheduledRunInput } from "../../core/contracts/scheduled-run.js";
import { FlowInactive, FlowNotFound, InvalidPlan } from "../../core/errors.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { recordRunStart } from "../../core/runs/run-records.js";
import { pinFlow, runFlowInput } from "../../core/runs/start-run.js";

/** One fire of a schedule makes one run: the id derives from the fire, so a retried attempt finds it. */
const scheduledRunId = (fireId: string) => derivedId("run", ["schedule", fireId]);

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
  config: Pick<Config, "SVC_ENCRYPTION_KEY">;
  metrics?: Pick<WorkerMetrics, "runsStarted">;
}) {
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  return {
    /**
     * Records the run of one schedule fire, pinned to the flow's version at fire time, with
     * run.started in the same commit. Null when the flow is gone, inactive or no longer
     * scheduled: the fire is skipped (the schedule is being paused or removed).
     */
    async startScheduledRun(args: StartScheduledRunInput): Promise<{ run: RunFlowInput } | { skipped: string }> {
      const runId = scheduledRunId(args.fireId);
      const { taskQueue } = Context.current().info;
      const started = await prisma.$transaction(
        async (tx): Promise<{ run: RunFlowInput; created?: true } | { skipped: string }> => {
          const recorded = await tx.run.findUnique({ where: { id: runId } });
          if (recorded) {
            // A retried attempt: the run as the first attempt recorded it, its version pinned.
            const flow = await pinFlow(tx, nodes, recorded, { active: false });
            return {
              run: runFlowInput(
                { ...flow, name: recorded.flowName },
                { ...recorded, id: runId, input: seal.open(recorded.input) },
              ),
            };
          }
          let flow;
          try {
            flow = await pinFlow(tx, nodes, args);
          } catch (error) {
            if (error instanceof FlowNotFound) return { skipped: "the flow no longer exists" };
            if (error instanceof FlowInactive) return { skipped: `the flow is ${error.flowStatus}` };
            if (error instanceof InvalidPlan) {
              throw ApplicationFailure.nonRetryable(`The flow cannot run here: ${error.reason}`, "FlowNotRunnable");
            }
            throw error;
          }
          if (!flow.definition.nodes.some((node) => node.type === "schedule")) {
            return { skipped: "the flow no longer starts with a schedule" };
          }
          const startedAt = clock.now();
          const input = { scheduled_at: args.scheduledAt, fired_at: startedAt.toISOString(), schedule_id: args.fireId };
          await recordRunStart(
            tx,
            { clock, seal },
            {
              id: runId,
              workspaceId: flow.workspaceId,
              flowId: flow.id,
              flowName: flow.name,
              version: flow.version,
              trigger: "schedule",
              input,
              taskQueue,
              startedAt,
            },
          );
          return { created: true, run: runFlowInput(flow, { id: runId, input, startedAt }) };
        },
      );
      if ("created" in started) metrics?.runsStarted.inc({ trigger: "schedule" });
      return "run" in started ? { run: started.run } : started;
    },
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
