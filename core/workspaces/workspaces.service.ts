// Workspaces: those a user belongs to, and new ones (their creator becomes owner).
import type { Clock } from "../../lib/clock.js";
import { configSchema, type Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { recordAudit, type AuditContext, type AuditSource } from "../audit/audit-log.js";
import { DomainError } from "../errors.js";
import type { MemberActor, WorkspaceView } from "./actor.js";
import { lockAccount, revokePendingResets } from "./reset-binding.js";

/** The workspace's own settings. */
export interface WorkspaceSettings {
  /** The flow to run when a run fails whose version names no error flow of its own. */
  error_flow_id: string | null;
  /** Its run trees' limits (core/runs/start/child-runs.ts); null: the server's. */
  run_tree_max_depth: number | null;
  run_tree_max_runs: number | null;
  /** Its nodes' items limits (worker/activities/node/node-items.ts); null: the server's. */
  items_max_count: number | null;
  items_max_bytes: number | null;
}

/** The settings as shown: with the limits in force (the workspace's, at most the server's). */
export type WorkspaceSettingsView = WorkspaceSettings & {
  run_tree_limits: { max_depth: number; max_runs: number };
  items_limits: { max_count: number; max_bytes: number };
};

type ItemLimits = Pick<Config, "ITEMS_MAX_COUNT" | "ITEMS_MAX_BYTES">;
/** The server's limits; the items limits take the settings' defaults when left out. */
type ServerLimits = Pick<Config, "RUN_TREE_MAX_DEPTH" | "RUN_TREE_MAX_RUNS"> & Partial<ItemLimits>;

const settingsSelect = {
  errorFlowId: true,
  runTreeMaxDepth: true,
  runTreeMaxRuns: true,
  itemsMaxCount: true,
  itemsMaxBytes: true,
} as const;

interface SettingsRow {
  errorFlowId: string | null;
  runTreeMaxDepth: number | null;
  runTreeMaxRuns: number | null;
  itemsMaxCount: number | null;
  itemsMaxBytes: number | null;
}

const itemLimitsOf = (limits: ServerLimits): ItemLimits => ({
  ITEMS_MAX_COUNT: limits.ITEMS_MAX_COUNT ?? configSchema.shape.ITEMS_MAX_COUNT.parse(undefined),
  ITEMS_MAX_BYTES: limits.ITEMS_MAX_BYTES ?? configSchema.shape.ITEMS_MAX_BYTES.parse(undefined),
});

function settingsView(row: SettingsRow, limits: ServerLimits): WorkspaceSettingsView {
  const items = itemLimitsOf(limits);
  return {
    error_flow_id: row.errorFlowId,
    run_tree_max_depth: row.runTreeMaxDepth,
    run_tree_max_runs: row.runTreeMaxRuns,
    items_max_count: row.itemsMaxCount,
    items_max_bytes: row.itemsMaxBytes,
    run_tree_limits: {
      max_depth: Math.min(row.runTreeMaxDepth ?? Infinity, limits.RUN_TREE_MAX_DEPTH),
      max_runs: Math.min(row.runTreeMaxRuns ?? Infinity, limits.RUN_TREE_MAX_RUNS),
    },
    items_limits: {
      max_count: Math.min(row.itemsMaxCount ?? Infinity, items.ITEMS_MAX_COUNT),
      max_bytes: Math.min(row.itemsMaxBytes ?? Infinity, items.ITEMS_MAX_BYTES),
    },
  };
}

const invalidSetting = (field: string, message: string) =>
  new DomainError("invalid", "invalid_settings", `${field}: ${message}`, {
    details: [{ path: `body.${field}`, message }],
  });

/** A limit a workspace may set: at most the server's. */
function checkLimit(field: string, value: number | null | undefined, ceiling: number, setting: string) {
  if (value != null && value > ceiling) {
    throw invalidSetting(field, `at most ${ceiling}, this server's ${setting}`);
  }
}

/** A setting's name as the API spells it (errorFlowId: error_flow_id). */
const settingName = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A new workspace owned by the actor. */
async function createWorkspace(
  { prisma, clock }: WorkspacesDeps,
  actor: MemberActor,
  name: string,
  source: AuditSource = {},
): Promise<WorkspaceView> {
  const id = newId("ws");
  await prisma.$transaction(async (tx) => {
    await lockAccount(tx, actor.user.id);
    await tx.workspace.create({ data: { id, name } });
    await tx.membership.create({ data: { userId: actor.user.id, workspaceId: id, role: "owner" } });
    // The account's pending reset links were issued against the workspaces it had.
    await revokePendingResets(tx, actor.user.id, clock.now());
    const owner = { ...actor, workspace: { workspaceId: id, name, role: "owner" as const } };
    await recordAudit(
      tx,
      clock,
      { actor: owner, source },
      {
        action: "workspace.created",
        object: { kind: "workspace", id },
        details: { name },
      },
    );
  });
  return { workspaceId: id, name, role: "owner" };
}

/** Changes the settings given; an error flow must be a flow of the workspace, a limit at most the server's. */
async function updateSettings(
  { prisma, clock, config }: WorkspacesDeps,
  workspaceId: string,
  change: Partial<WorkspaceSettings>,
  audit?: AuditContext,
): Promise<WorkspaceSettingsView> {
  checkLimit("run_tree_max_depth", change.run_tree_max_depth, config.RUN_TREE_MAX_DEPTH, "RUN_TREE_MAX_DEPTH");
  checkLimit("run_tree_max_runs", change.run_tree_max_runs, config.RUN_TREE_MAX_RUNS, "RUN_TREE_MAX_RUNS");
  const items = itemLimitsOf(config);
  checkLimit("items_max_count", change.items_max_count, items.ITEMS_MAX_COUNT, "ITEMS_MAX_COUNT");
  checkLimit("items_max_bytes", change.items_max_bytes, items.ITEMS_MAX_BYTES, "ITEMS_MAX_BYTES");
  if (change.error_flow_id) {
    const flow = await prisma.flow.findFirst({
      where: { id: change.error_flow_id, workspaceId },
      select: { id: true },
    });
    if (!flow) throw invalidSetting("error_flow_id", `no flow ${change.error_flow_id} in this workspace`);
  }
  const workspace = await prisma.$transaction(async (tx) => {
    const before = await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: settingsSelect });
    const after = await tx.workspace.update({
      where: { id: workspaceId },
      data: {
        ...(change.error_flow_id === undefined ? {} : { errorFlowId: change.error_flow_id }),
        ...(change.run_tree_max_depth === undefined ? {} : { runTreeMaxDepth: change.run_tree_max_depth }),
        ...(change.run_tree_max_runs === undefined ? {} : { runTreeMaxRuns: change.run_tree_max_runs }),
        ...(change.items_max_count === undefined ? {} : { itemsMaxCount: change.items_max_count }),
        ...(change.items_max_bytes === undefined ? {} : { itemsMaxBytes: change.items_max_bytes }),
      },
      select: settingsSelect,
    });
    // The names of the settings changed, never their values.
    const changed = (Object.keys(settingsSelect) as Array<keyof SettingsRow>).filter(
      (key) => before[key] !== after[key],
    );
    if (audit && changed.length > 0)
      await recordAudit(tx, clock, audit, {
        action: "workspace.settings_changed",
        object: { kind: "workspace", id: workspaceId },
        details: { changed: changed.map(settingName) },
      });
    return after;
  });
  return settingsView(workspace, config);
}

interface WorkspacesDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: ServerLimits;
}

export function createWorkspacesService(deps: WorkspacesDeps) {
  const { prisma, config } = deps;
  return {
    /** The actor's workspaces in the order they joined them; `current` marks the one they act in. */
    async listFor(actor: MemberActor): Promise<Array<WorkspaceView & { current: boolean }>> {
      const memberships = await prisma.membership.findMany({
        where: { userId: actor.user.id },
        select: { role: true, workspace: { select: { id: true, name: true } } },
        orderBy: { createdAt: "asc" },
      });
      return memberships.map((m) => ({
        workspaceId: m.workspace.id,
        name: m.workspace.name,
        role: m.role,
        current: m.workspace.id === actor.workspace.workspaceId,
      }));
    },

    /** A new workspace owned by the actor. */
    create: (actor: MemberActor, name: string, source?: AuditSource) => createWorkspace(deps, actor, name, source),

    async settings(workspaceId: string): Promise<WorkspaceSettingsView> {
      const workspace = await prisma.workspace.findUniqueOrThrow({
        where: { id: workspaceId },
        select: settingsSelect,
      });
      return settingsView(workspace, config);
    },

    /** Changes the settings given (updateSettings). */
    updateSettings: (workspaceId: string, change: Partial<WorkspaceSettings>, audit?: AuditContext) =>
      updateSettings(deps, workspaceId, change, audit),
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;
