// A flow's `debounce` (docs/flows.md "Flow control", docs/engine.md "Debounce windows"): starts of
// the flow within `period_ms` of each other, per key, collapse into one run with the last input.
//
// The window is a row of debounce_windows per flow and key, upserted by the API's start in one
// statement (PostgreSQL's row lock on the conflict decides between concurrent starts): the start
// that inserts it opens a window and launches its run, whose workflow first waits for the window
// to close; a start that finds it open replaces its input, is recorded in debounced_starts and
// answers that run. The workflow closes the window when no start came for `period_ms` (or
// `max_wait_ms` after it opened), deleting the row and moving its input to the run's record in one
// transaction, and runs with that input: a start after the delete opens a new window. Nothing in
// process memory and no signal to lose: the workflow reads the window from the database each time
// its timer fires.
import { createHash } from "node:crypto";
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, type PrismaClient } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { debounceMaxWaitMs, type DebounceSetting } from "../../contracts/flow-definition.js";
import type { RunDebounce } from "../../contracts/run-flow.js";
import { DomainError } from "../../errors.js";
import { ConcurrencyKeyError, renderConcurrencyKey } from "../../flows/concurrency-key.js";
import { requiredPriority } from "../../flows/priority-template.js";
import { launch, type LaunchRequest, type RunStarterDeps, type StartedRun } from "./launch.js";
import type { PinnedFlow } from "./pinned-flow.js";

/**
 * How long after its longest wait a window is taken as abandoned (its starter died between the
 * window's insert and its run's record, or its run's worker was away that long): a start then
 * opens a new window in its place. The old run, if any, runs with its own first input.
 */
export const ABANDONED_WINDOW_GRACE_MS = 60_000;

/** The hash a window is stored under: any key gives a bounded value, and no run input in plain text. */
export function debounceKeyHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The run's debounce as its workflow needs it, or 400 naming debounce.key when its key does not render. */
export function runDebounce(setting: DebounceSetting, input: unknown): RunDebounce {
  let key: string;
  try {
    key = renderConcurrencyKey(setting, input, "definition.debounce.key");
  } catch (error) {
    if (!(error instanceof ConcurrencyKeyError)) throw error;
    throw new DomainError("invalid", "validation_failed", error.message, {
      details: [{ path: "definition.debounce.key", message: error.message }],
    });
  }
  return { keyHash: debounceKeyHash(key), periodMs: setting.period_ms, maxWaitMs: debounceMaxWaitMs(setting) };
}

/**
 * A start of a flow with `debounce`: opens the key's window and launches its run, or joins the
 * open window (its input replaces the window's; the start is recorded as debounced into the
 * window's run, which it answers). Undefined when the flow changed since it was pinned.
 */
export async function launchDebounced(
  deps: RunStarterDeps,
  flow: PinnedFlow,
  request: LaunchRequest,
): Promise<StartedRun | undefined> {
  const debounce = runDebounce(flow.definition.debounce!, request.input);
  // A start whose priority does not render is refused before it joins a window, as launch() would.
  requiredPriority(flow.definition, request.input);
  const runId = request.runId ?? newId("run");
  const now = deps.clock.now();
  const abandonedBefore = new Date(now.getTime() - debounce.maxWaitMs - ABANDONED_WINDOW_GRACE_MS);
  const sealed = JSON.stringify(deps.blobs.seal.seal(request.input));
  const startId = newId("dbs");
  // A window is replaced by a new one when abandoned, or when its run has ended (cancelled while
  // it waited): a start never joins a run that will not run.
  const replaced = Prisma.sql`(w.opened_at < ${abandonedBefore}
    OR EXISTS (SELECT 1 FROM runs r WHERE r.id = w.run_id AND r.status NOT IN ('running', 'queued')))`;
  // One statement: the conflict's row lock orders concurrent starts of one flow and key.
  const [window] = await deps.prisma.$queryRaw<Array<{ runId: string; openedAt: Date }>>`
    WITH win AS (
      INSERT INTO debounce_windows AS w (flow_id, key_hash, run_id, workspace_id, input, opened_at, last_start_at, starts)
      VALUES (${flow.id}, ${debounce.keyHash}, ${runId}, ${flow.workspaceId}, ${sealed}::jsonb, ${now}, ${now}, 1)
      ON CONFLICT (flow_id, key_hash) DO UPDATE SET
        run_id = CASE WHEN ${replaced} THEN EXCLUDED.run_id ELSE w.run_id END,
        opened_at = CASE WHEN ${replaced} THEN EXCLUDED.opened_at ELSE w.opened_at END,
        starts = CASE WHEN ${replaced} THEN 1 ELSE w.starts + 1 END,
        input = EXCLUDED.input,
        last_start_at = GREATEST(w.last_start_at, EXCLUDED.last_start_at)
      RETURNING run_id, opened_at
    ), collapsed AS (
      INSERT INTO debounced_starts (id, run_id, workspace_id, trigger, at)
      SELECT ${startId}, run_id, ${flow.workspaceId}, ${request.trigger}, ${now} FROM win WHERE run_id <> ${runId}
    )
    SELECT run_id AS "runId", opened_at AS "openedAt" FROM win`;
  if (window!.runId !== runId) {
    // Joined an open window: no run of its own, so its quota (the hook's rate) is counted alone.
    await request.quota?.countAlone();
    return {
      id: window!.runId,
      flowId: flow.id,
      status: "running",
      startedAt: window!.openedAt,
      retryOf: null,
      rerunOf: null,
    };
  }
  let started: StartedRun | undefined;
  try {
    started = await launch(deps, flow, { ...request, runId, debounce });
  } finally {
    // Not launched (the flow changed, is inactive, the quota is spent): the window goes with it.
    if (!started) await dropDebounceWindow(deps.prisma, { flowId: flow.id, keyHash: debounce.keyHash, runId });
  }
  return started;
}

/** The debounce of a recorded run whose window is still open (its workflow's start is repeated). */
export async function openWindowOf(
  deps: Pick<RunStarterDeps, "prisma">,
  setting: DebounceSetting,
  runId: string,
): Promise<RunDebounce | undefined> {
  const window = await deps.prisma.debounceWindow.findFirst({ where: { runId }, select: { keyHash: true } });
  return window
    ? { keyHash: window.keyHash, periodMs: setting.period_ms, maxWaitMs: debounceMaxWaitMs(setting) }
    : undefined;
}

/** Deletes the run's window, if it still has one (its run was cancelled or never launched). */
export async function dropDebounceWindow(
  prisma: PrismaClient,
  window: { flowId: string; keyHash: string; runId: string },
): Promise<void> {
  await prisma.debounceWindow.deleteMany({
    where: { flowId: window.flowId, keyHash: window.keyHash, runId: window.runId },
  });
}

export type WindowCheck = { closed: true; input: unknown } | { closed: false; waitMs: number };

/**
 * The run's workflow asks when its timer fires: still open (a start came less than `periodMs`
 * ago and its longest wait has not passed), or closed now, its last input moved to the run's
 * record in the same transaction and answered. A window already closed (a repeat of this
 * activity) or taken over as abandoned answers the run's recorded input. `force` closes it now.
 */
export async function checkDebounceWindow(
  deps: { prisma: PrismaClient; clock: Clock; seal: JsonSeal },
  window: { flowId: string; runId: string } & RunDebounce & { force?: boolean },
): Promise<WindowCheck> {
  const { prisma, clock, seal } = deps;
  return prisma.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<Array<{ input: unknown; openedAt: Date; lastStartAt: Date }>>`
      SELECT input, opened_at AS "openedAt", last_start_at AS "lastStartAt" FROM debounce_windows
      WHERE flow_id = ${window.flowId} AND key_hash = ${window.keyHash} AND run_id = ${window.runId}
      FOR UPDATE`;
    if (row) {
      const closesAt = Math.min(row.lastStartAt.getTime() + window.periodMs, row.openedAt.getTime() + window.maxWaitMs);
      const waitMs = closesAt - clock.now().getTime();
      if (waitMs > 0 && !window.force) return { closed: false, waitMs };
      await tx.debounceWindow.delete({
        where: { flowId_keyHash: { flowId: window.flowId, keyHash: window.keyHash } },
      });
      await tx.$executeRaw`UPDATE runs SET input = ${JSON.stringify(row.input)}::jsonb WHERE id = ${window.runId}`;
      return { closed: true, input: seal.open(row.input) };
    }
    const run = await tx.run.findUnique({ where: { id: window.runId }, select: { input: true } });
    return { closed: true, input: run ? seal.open(run.input) : undefined };
  });
}
