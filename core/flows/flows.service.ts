import { canonicalJson } from "../../lib/canonical-json.js";
import type { Clock } from "../../lib/clock.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { emitEvent } from "../../lib/events.js";
import { newId } from "../../lib/ids.js";
import type { RunStatus } from "../contracts/run-flow.js";
import { storedDefinition, type FlowDefinition } from "./definition.js";
import { findFlowCycle } from "./flow-references.js";
import { validateFlowDefinition } from "./validate.js";
import { credentialReferences } from "../credentials/credential-references.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import { newHookToken } from "./hook-tokens.js";
import { HOOK_TRIGGER_TYPES } from "../nodes/http-trigger/http-trigger.node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { Actor } from "../workspaces/actor.js";
import type { TimeIdKey } from "../../lib/keyset.js";
import { DomainError, FlowNotFound } from "../errors.js";
import { temporalRefusal } from "../engine/temporal-start.js";
import { RunNotFound, RunNotRunning } from "../runs/run-errors.js";
import type { RunsService } from "../runs/runs.service.js";
import { FlowVersionNotFound, InvalidDefinition, TemplateNotFound, VersionConflict } from "./flow-errors.js";
import { findTemplate } from "./flow-templates.js";
import type { FlowSchedules } from "./flow-schedules.js";
import { SCHEDULE_TRANSACTION, scheduleOf } from "./flow-schedules.js";

export type FlowStatus = "active" | "inactive" | "archived";

/** How many runs of a deleted flow are cancelled side by side. */
const CANCELS_AT_ONCE = 8;

/** A new flow: from a definition, or from a template (its name, description and definition unless given). */
export interface CreateFlowInput {
  name?: string;
  description?: string;
  status?: FlowStatus;
  definition?: unknown;
  template?: string;
}

/** A change made against `version`: the fields given change; a changed definition makes a new version. */
export interface UpdateFlowInput {
  version: number;
  name?: string;
  description?: string;
  status?: FlowStatus;
  definition?: unknown;
}

type FlowRow = {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  status: FlowStatus;
  version: number;
  definition: unknown;
  hookToken: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** The hook of a flow whose entry node is an HTTP trigger: where to call it, and whether it answers. */
function hookOf(flow: FlowRow) {
  const entry = storedDefinition(flow.definition).nodes?.find((node) => HOOK_TRIGGER_TYPES.has(node.type));
  if (!entry || !flow.hookToken) return null;
  return { path: `/api/hooks/${flow.hookToken}`, node_id: entry.id, type: entry.type, live: flow.status === "active" };
}

/** The spec's list item, exactly. */
const listItem = (flow: Pick<FlowRow, "id" | "name" | "status" | "version" | "updatedAt">) => ({
  id: flow.id,
  name: flow.name,
  status: flow.status,
  version: flow.version,
  updated_at: flow.updatedAt.toISOString(),
});

/** A flows-list row: the flow and its newest run's columns (null when it never ran). */
type ListRow = Pick<FlowRow, "id" | "name" | "status" | "version" | "updatedAt"> & {
  runId: string | null;
  runStatus: RunStatus | null;
  runStartedAt: Date | null;
  runFinishedAt: Date | null;
  runDurationMs: number | null;
};

const lastRunOf = (row: ListRow) =>
  row.runId === null
    ? null
    : {
        id: row.runId,
        status: row.runStatus!,
        started_at: row.runStartedAt!.toISOString(),
        finished_at: row.runFinishedAt?.toISOString() ?? null,
        duration_ms: row.runDurationMs,
      };

const detail = (flow: FlowRow) => ({
  ...listItem(flow),
  description: flow.description,
  created_at: flow.createdAt.toISOString(),
  definition: storedDefinition(flow.definition),
  hook: hookOf(flow),
});

export type FlowDetail = ReturnType<typeof detail> & {
  schedule: Awaited<ReturnType<FlowSchedules["describe"]>>;
};

export function createFlowsService({
  prisma,
  clock,
  nodes,
  schedules,
  credentials,
  runs,
}: {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  schedules: FlowSchedules;
  credentials: Pick<CredentialsService, "checkReferences">;
  /** What cancels the runs of a flow being deleted. */
  runs: Pick<RunsService, "cancel">;
}) {
  /** The detail with the schedule as Temporal has it (asked only of flows that start with one). */
  async function withSchedule(flow: FlowRow): Promise<FlowDetail> {
    return { ...detail(flow), schedule: await schedules.describe(flow) };
  }

  /**
   * A valid definition whose credentials exist in the workspace and suit their nodes, or a 400
   * listing every problem under `definition.`.
   */
  async function checkDefinition(workspaceId: string, raw: unknown): Promise<FlowDefinition> {
    const result = validateFlowDefinition(raw, nodes);
    const problems = result.ok
      ? await credentials.checkReferences(workspaceId, credentialReferences(result.definition, nodes))
      : result.problems;
    if (result.ok && problems.length === 0) return result.definition;
    throw new InvalidDefinition(problems);
  }

  /** A definition whose runs would start its own flow again (through flow.call, loop or its error flow): a 400. */
  async function refuseCycle(
    db: object,
    target: { workspaceId: string; flowId: string; name: string },
    definition: FlowDefinition,
  ): Promise<void> {
    const cycle = await findFlowCycle(db, nodes, target, definition);
    if (!cycle) return;
    throw new InvalidDefinition([
      {
        path: cycle.reference.path,
        message:
          `${cycle.reference.how} starts this flow again (${cycle.names.join(" → ")}): every run would start ` +
          `another until its run tree's depth limit. Recursion is not supported; use a loop over the items instead`,
      },
    ]);
  }

  /**
   * Asks Temporal to cancel each running run of the flow but those `already` asked (a few at a
   * time); the ids of those it took. A run that ended meanwhile is left as it ended; a cancel
   * Temporal refuses is `failure`.
   */
  async function cancelRunsOf(
    workspaceId: string,
    flowId: string,
    failure: string,
    already: readonly string[] = [],
  ): Promise<string[]> {
    const running = await prisma.run.findMany({
      where: { workspaceId, flowId, status: "running", id: { notIn: [...already] } },
      select: { id: true },
      orderBy: { startedAt: "asc" },
    });
    const cancelled: string[] = [];
    for (let i = 0; i < running.length; i += CANCELS_AT_ONCE) {
      await Promise.all(
        running.slice(i, i + CANCELS_AT_ONCE).map(async ({ id: runId }) => {
          try {
            await runs.cancel(workspaceId, runId);
            cancelled.push(runId);
          } catch (error) {
            // Ended meanwhile, or deleted: nothing left to cancel.
            if (error instanceof RunNotRunning || error instanceof RunNotFound) return;
            throw error instanceof DomainError ? error : temporalRefusal(failure, error, { run_id: runId });
          }
        }),
      );
    }
    return cancelled;
  }

  async function find(workspaceId: string, id: string): Promise<FlowRow> {
    const flow = await prisma.flow.findFirst({ where: { id, workspaceId } });
    if (!flow) throw new FlowNotFound();
    return flow;
  }

  return {
    /**
     * Flows, newest change first, each with its last run: one statement, the newest run of each
     * flow found by a lateral lookup on the runs index (workspace, flow, started_at). `after`
     * continues after a flow a page showed (its update time and id).
     */
    async list(workspaceId: string, query: { status?: FlowStatus; limit: number; after?: TimeIdKey }) {
      const after = query.after;
      const rows = await sqlQuery<ListRow>(
        prisma,
        Prisma.sql`
          SELECT f.id, f.name, f.status::text AS status, f.version, f.updated_at AS "updatedAt",
                 r.id AS "runId", r.status::text AS "runStatus", r.started_at AS "runStartedAt",
                 r.finished_at AS "runFinishedAt", r.duration_ms AS "runDurationMs"
          FROM flows f
          LEFT JOIN LATERAL (
            SELECT id, status, started_at, finished_at, duration_ms FROM runs
            WHERE workspace_id = f.workspace_id AND flow_id = f.id
            ORDER BY started_at DESC, id DESC LIMIT 1
          ) r ON true
          WHERE f.workspace_id = ${workspaceId}
            ${query.status ? Prisma.sql`AND f.status = ${query.status}::"FlowStatus"` : Prisma.empty}
            ${after ? Prisma.sql`AND (f.updated_at, f.id) < (${after.time}, ${after.id})` : Prisma.empty}
          ORDER BY f.updated_at DESC, f.id DESC
          LIMIT ${query.limit}`,
      );
      return rows.map((row) => ({ ...listItem(row), last_run: lastRunOf(row) }));
    },

    async get(workspaceId: string, id: string): Promise<FlowDetail> {
      return withSchedule(await find(workspaceId, id));
    },

    async create(actor: Actor, input: CreateFlowInput): Promise<FlowDetail> {
      const template = input.template === undefined ? undefined : findTemplate(input.template);
      if (input.template !== undefined && !template) {
        throw new TemplateNotFound(input.template);
      }
      const definition = await checkDefinition(
        actor.workspace.workspaceId,
        template ? template.definition : input.definition,
      );
      const now = clock.now();
      const id = newId("wf");
      const flow = await prisma.$transaction(async (tx) => {
        const created = await tx.flow.create({
          data: {
            id,
            workspaceId: actor.workspace.workspaceId,
            name: input.name ?? template!.name,
            description: input.description ?? template?.description ?? "",
            status: input.status ?? "active",
            version: 1,
            definition: definition as object,
            hookToken: newHookToken(),
            createdBy: actor.user.id,
            createdAt: now,
            updatedAt: now,
          },
        });
        await tx.flowVersion.create({
          data: { flowId: id, version: 1, definition: definition as object, createdBy: actor.user.id, createdAt: now },
        });
        // Inside the transaction: when Temporal refuses the schedule, the flow is not saved either.
        if (scheduleOf(definition)) await schedules.sync(created);
        return created;
      }, SCHEDULE_TRANSACTION);
      return withSchedule(flow);
    },

    /**
     * Applies an update made against `input.version`. A changed definition becomes a new
     * immutable version; a stale version answers 409 with the current one. Emits flow.updated.
     */
    async update(actor: Actor, id: string, input: UpdateFlowInput): Promise<FlowDetail> {
      const workspaceId = actor.workspace.workspaceId;
      const definition =
        input.definition === undefined ? undefined : await checkDefinition(workspaceId, input.definition);
      const staleVersion = (current: number) => new VersionConflict(input.version, current);

      const flow = await prisma.$transaction(async (tx) => {
        const flow = await tx.flow.findFirst({ where: { id, workspaceId } });
        if (!flow) throw new FlowNotFound();
        if (flow.version !== input.version) throw staleVersion(flow.version);

        const definitionChanged =
          definition !== undefined && canonicalJson(definition) !== canonicalJson(flow.definition);
        if (definitionChanged)
          await refuseCycle(tx, { workspaceId, flowId: id, name: input.name ?? flow.name }, definition);
        const changed = [
          ...(definitionChanged ? ["definition"] : []),
          ...(["name", "description", "status"] as const).filter(
            (key) => input[key] !== undefined && input[key] !== flow[key],
          ),
        ];
        if (changed.length === 0) return flow;

        const now = clock.now();
        const version = definitionChanged ? flow.version + 1 : flow.version;
        // Conditional on the version read: a concurrent update in between makes this one stale.
        const { count } = await tx.flow.updateMany({
          where: { id, workspaceId, version: flow.version },
          data: {
            name: input.name,
            description: input.description,
            status: input.status,
            ...(definitionChanged ? { definition: definition as object, version } : {}),
            // Flows saved before hooks existed get their token with their next change.
            ...(flow.hookToken ? {} : { hookToken: newHookToken() }),
            updatedAt: now,
          },
        });
        if (count === 0) {
          const current = await tx.flow.findFirst({ where: { id }, select: { version: true } });
          throw staleVersion(current?.version ?? flow.version);
        }
        if (definitionChanged) {
          await tx.flowVersion.create({
            data: { flowId: id, version, definition: definition as object, createdBy: actor.user.id, createdAt: now },
          });
        }
        const updated = await tx.flow.findUniqueOrThrow({ where: { id } });
        await emitEvent(tx, clock, workspaceId, "flow.updated", {
          workflow_id: id,
          workflow_name: updated.name,
          version: updated.version,
          status: updated.status,
          changed,
          updated_by: actor.user.id,
          updated_at: now.toISOString(),
        });
        // Activation, deactivation and new versions reach the schedule before the commit.
        if (scheduleOf(flow.definition) || scheduleOf(updated.definition)) await schedules.sync(updated);
        return updated;
      }, SCHEDULE_TRANSACTION);
      return withSchedule(flow);
    },

    /** A new hook token: the old hook URL stops answering at once. */
    async regenerateHook(workspaceId: string, id: string): Promise<FlowDetail> {
      await find(workspaceId, id);
      return withSchedule(await prisma.flow.update({ where: { id }, data: { hookToken: newHookToken() } }));
    },

    /**
     * Deletes the flow after cancelling its running runs (waiting ones included: their waits
     * close), as n8n and Windmill do, so that none resumes and executes a flow that is gone.
     * Cancelled first: when Temporal does not take a cancel, the flow stays (503) and a repeat
     * finishes the job. A run started in between (a hook, a schedule) is cancelled after.
     */
    async remove(workspaceId: string, id: string): Promise<{ cancelled_runs: string[] }> {
      await find(workspaceId, id);
      const cancelled = await cancelRunsOf(
        workspaceId,
        id,
        "The flow's runs could not be cancelled: it was not deleted",
      );
      await prisma.$transaction(async (tx) => {
        const { count } = await tx.flow.deleteMany({ where: { id, workspaceId } });
        if (count === 0) throw new FlowNotFound();
        // Every flow may have had a schedule in an earlier version: removing a missing one is a no-op.
        await schedules.remove(id);
      }, SCHEDULE_TRANSACTION);
      const late = await cancelRunsOf(
        workspaceId,
        id,
        "The flow was deleted, but a run it started meanwhile could not be cancelled (POST /api/runs/{id}/cancel)",
        cancelled,
      );
      return { cancelled_runs: [...cancelled, ...late] };
    },

    /** The flow's versions, newest first; `before` continues below a version a page showed. */
    async versions(workspaceId: string, id: string, query: { limit: number; before?: number }) {
      await find(workspaceId, id);
      const versions = await prisma.flowVersion.findMany({
        where: { flowId: id, ...(query.before === undefined ? {} : { version: { lt: query.before } }) },
        orderBy: { version: "desc" },
        select: { version: true, createdAt: true, createdBy: true },
        take: query.limit,
      });
      return versions.map((v) => ({
        version: v.version,
        created_at: v.createdAt.toISOString(),
        created_by: v.createdBy,
      }));
    },

    async version(workspaceId: string, id: string, version: number) {
      await find(workspaceId, id);
      const found = await prisma.flowVersion.findUnique({ where: { flowId_version: { flowId: id, version } } });
      if (!found) throw new FlowVersionNotFound(id, version);
      return {
        flow_id: id,
        version: found.version,
        definition: found.definition,
        created_at: found.createdAt.toISOString(),
        created_by: found.createdBy,
      };
    },
  };
}

export type FlowsService = ReturnType<typeof createFlowsService>;
