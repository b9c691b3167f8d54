// A start with an idempotency key: a repeat of the same request answers the run the key started
// (`replayed`), first starting its workflow if that run is still running (the first request may
// have been answered 503 with its start's outcome unknown); another request with the key answers
// 409 idempotency_key_reused and nothing of that run. A key whose window has passed is released.
import type { RunTrigger } from "../contracts/run-flow.js";
import { DomainError } from "../errors.js";
import {
  DuplicateIdempotencyKey,
  ensureStarted,
  IdempotencyKeyReused,
  launchCurrent,
  type KnownFlows,
  type RunStarterDeps,
  type StartRequest,
  type StartedRun,
} from "./run-launch.js";

export interface StartAnswer {
  run: StartedRun;
  replayed: boolean;
}

/** What answering one start request holds: its request and how it finds the run of its key. */
interface KeyedStart {
  deps: RunStarterDeps;
  knownFlows: KnownFlows;
  request: StartRequest;
  /** The run recorded under the request's key, if any. */
  runOfKey: () => Promise<KeyedRun | null>;
}

type KeyedRun = NonNullable<Awaited<ReturnType<typeof findRunOfKey>>>;

function findRunOfKey(deps: RunStarterDeps, { workspaceId, idempotencyKey }: StartRequest) {
  return idempotencyKey
    ? deps.prisma.run.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey } } })
    : Promise.resolve(null);
}

/**
 * Starts a run of the flow's current version, or answers the run its key started. A quota is
 * counted by the statement that records the run; a request that starts no run of its own (a
 * repeated key) is counted alone.
 */
export async function startKeyedRun(
  deps: RunStarterDeps,
  knownFlows: KnownFlows,
  request: StartRequest,
): Promise<StartAnswer> {
  const start: KeyedStart = { deps, knownFlows, request, runOfKey: () => findRunOfKey(deps, request) };
  const { idempotencyKey, idempotencyWindowMs } = request;
  let earlier = await start.runOfKey();
  if (
    earlier &&
    idempotencyWindowMs !== undefined &&
    earlier.startedAt.getTime() < deps.clock.now().getTime() - idempotencyWindowMs
  ) {
    // The key's window has passed: it is released and this request starts a new run (a
    // concurrent one releasing it too loses the insert below and answers with the winner).
    await deps.prisma.run.updateMany({ where: { id: earlier.id, idempotencyKey }, data: { idempotencyKey: null } });
    earlier = null;
  }
  return earlier ? answerReplayed(start, earlier) : startFresh(start, request);
}

/** Counted alone: a repeat records no run of its own (one that ends up starting anew is not counted again). */
async function answerReplayed(start: KeyedStart, run: KeyedRun): Promise<StartAnswer> {
  await start.request.quota?.countAlone();
  return answerRepeat(start, run);
}

/**
 * Whether a repeat is the request that used the key: a run recorded without a fingerprint (before
 * they were kept) matches no request.
 */
const sameRequest = (run: KeyedRun, request: StartRequest) =>
  run.requestFingerprint !== null && run.requestFingerprint === request.requestFingerprint;

async function answerRepeat(start: KeyedStart, run: KeyedRun): Promise<StartAnswer> {
  const { deps, request } = start;
  // First: another request learns nothing of the run, not even whether it ran another flow.
  if (!sameRequest(run, request)) throw new IdempotencyKeyReused();
  if (run.flowId !== request.flowId) {
    throw new DomainError("conflict", "conflict", "This Idempotency-Key was used for a run of another flow");
  }
  if (run.status !== "running") return { run, replayed: true };
  // Marked before the start is tried, so that the reconciler, which ends a run it finds
  // never started only if no one has tried since, cannot end it under this start.
  const marked = await deps.prisma.run.updateMany({
    where: { id: run.id, status: "running" },
    data: { startAttemptedAt: deps.clock.now() },
  });
  if (marked.count === 0) {
    // It ended meanwhile: answer it, or, if it ended never started and freed its key, start anew.
    const now = await start.runOfKey();
    return now ? answerRepeat(start, now) : startFresh(start, { ...request, quota: undefined });
  }
  // The column holds what a RunTrigger was when the run was recorded.
  await ensureStarted(deps, { ...run, trigger: run.trigger as RunTrigger });
  return { run, replayed: true };
}

async function startFresh(start: KeyedStart, attempt: StartRequest): Promise<StartAnswer> {
  try {
    return { run: await launchCurrent(start.deps, start.knownFlows, attempt), replayed: false };
  } catch (error) {
    // A concurrent request with the same key won the race: answer with its run.
    if (error instanceof DuplicateIdempotencyKey) {
      const winner = await start.runOfKey();
      if (winner) return answerReplayed(start, winner);
    }
    throw error;
  }
}
