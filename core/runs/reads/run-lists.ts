// A workspace's runs as lists: filtered pages (GET /api/runs) and the latest few (the dashboard).
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../../lib/db.js";
import { afterTimeAndId, type TimeIdKey } from "../../../lib/keyset.js";
import type { RunStatus, RunTrigger } from "../../contracts/run-flow.js";
import { runSummary } from "./run-views.js";

/** Which runs a list shows; filters combine (AND). */
export interface RunFilter {
  flowId?: string;
  /** A run id or its beginning. */
  idPrefix?: string;
  status?: RunStatus;
  trigger?: RunTrigger;
  /** Only test runs (replays against a draft), or none of them. */
  test?: boolean;
  /** Runs started at or after this instant. */
  startedAfter?: Date;
  /** Runs started before this instant. */
  startedBefore?: Date;
}

/**
 * A whole run id is looked up by the primary key; a beginning of one as a range of the key too: the
 * ids it begins lie between it and it followed by "g", hex digits being all that follows.
 */
const RUN_ID_LENGTH = "run_".length + 24;
const idFilter = (prefix: string | undefined) =>
  prefix === undefined
    ? {}
    : prefix.length === RUN_ID_LENGTH
      ? { id: prefix }
      : { id: { gte: prefix, lt: `${prefix}g`, startsWith: prefix } };

/**
 * Newest first; filters combine (AND); `after` continues after a run a page showed (its start and id).
 * Each run says what it reruns, how often it was rerun, and why it failed, in a line (its error opened).
 */
export async function listRuns(
  { prisma, seal }: { prisma: PrismaClient; seal: JsonSeal },
  workspaceId: string,
  query: RunFilter & { limit: number; after?: TimeIdKey },
) {
  const window =
    query.startedAfter || query.startedBefore
      ? {
          startedAt: {
            ...(query.startedAfter ? { gte: query.startedAfter } : {}),
            ...(query.startedBefore ? { lt: query.startedBefore } : {}),
          },
        }
      : {};
  const rows = await prisma.run.findMany({
    where: {
      workspaceId,
      ...(query.flowId ? { flowId: query.flowId } : {}),
      ...idFilter(query.idPrefix),
      ...(query.status ? { status: query.status } : {}),
      ...(query.trigger ? { trigger: query.trigger } : {}),
      ...(query.test === undefined ? {} : { test: query.test }),
      ...window,
      ...afterTimeAndId(query.after, { time: "startedAt", id: "id" }, "desc"),
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  const reruns = await rerunCounts(
    prisma,
    workspaceId,
    rows.map((run) => run.id),
  );
  return rows.map((run) => ({
    ...runSummary(run),
    version: run.version,
    trigger: run.trigger,
    test: run.test,
    rerun_of: run.rerunOf,
    reruns: reruns.get(run.id) ?? 0,
    error: errorLine(seal.open(run.error)),
  }));
}

/** How many runs rerun (or retry) each of `ids`: one grouped read over the rerun_of index. */
async function rerunCounts(prisma: PrismaClient, workspaceId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const groups = await prisma.run.groupBy({
    by: ["rerunOf"],
    where: { workspaceId, rerunOf: { in: ids } },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.rerunOf!, group._count._all]));
}

/**
 * A list's line of a run's error: the failed node and its message's first line, cut short (the run's
 * page has the whole).
 */
const ERROR_LINE_MAX = 200;
function errorLine(error: unknown): string | null {
  if (!error || typeof error !== "object") return null;
  const { message, node_id: nodeId } = error as { message?: unknown; node_id?: unknown };
  if (typeof message !== "string" || message.trim() === "") return null;
  const first = message.trim().split("\n")[0]!;
  const line = typeof nodeId === "string" ? `${nodeId}: ${first}` : first;
  return line.length > ERROR_LINE_MAX ? `${line.slice(0, ERROR_LINE_MAX - 1)}…` : line;
}

/** The workspace's latest runs, newest first. */
export async function latestRuns(prisma: PrismaClient, workspaceId: string, limit: number) {
  const rows = await prisma.run.findMany({
    where: { workspaceId },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return { items: rows.map(runSummary) };
}
