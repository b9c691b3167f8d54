// The API's run starter (the run endpoint, hooks, retries, the svc CLI); the worker's runs
// (schedule fires, loop children, agents' flow.run, error flows) start through child-runs.ts.
// One path: a request's idempotency key (answering the run it started, or none), the flow's
// current version (pinned-flow.ts), the run recorded and its workflow started (launch.ts, then
// workflow-start.ts).
//
// With an idempotency key, a repeat of the same request answers the run the key started
// (`replayed`), first starting its workflow if that run is still running (the first request may
// have been answered 503 with its start's outcome unknown); another request with the key answers
// 409 idempotency_key_reused and nothing of that run. A key whose window has passed is released.
import { runHasEnded, UNENDED_RUN_STATUSES, type RunTrigger } from "../../contracts/run-flow.js";
import { DomainError, domainErrorClass } from "../../errors.js";
import { DuplicateRunKey } from "../records/run-records.js";
import { launch, type LaunchRequest, type RunStarterDeps, type StartRequest, type StartedRun } from "./launch.js";
import { launchDebounced, openWindowOf } from "./debounce.js";
import { KnownFlows, pinFlow, type PinnedFlow } from "./pinned-flow.js";
import { startWorkflow } from "./workflow-start.js";

export type { RunStarterDeps, StartRequest, StartedRun } from "./launch.js";

export interface StartAnswer {
  run: StartedRun;
  replayed: boolean;
}

/** Another request recorded a run with the same idempotency key first. */
export const DuplicateIdempotencyKey = domainErrorClass(
  "DuplicateIdempotencyKey",
  "conflict",
  "idempotency_conflict",
  "A request with this Idempotency-Key is being processed",
);

/**
 * A used idempotency key repeated with another request (another method, path or body): nothing of
 * the run it started is answered, not even its id.
 */
export const IdempotencyKeyReused = domainErrorClass(
  "IdempotencyKeyReused",
  "conflict",
  "idempotency_key_reused",
  "This idempotency key was used for another request (another method, path or body): use a new key for a new request",
);

export function createRunStarter(deps: RunStarterDeps) {
  const knownFlows = new KnownFlows();
  return {
    /** Records and starts a run of `flow` as pinned; undefined when the flow changed since. */
    launch: (flow: PinnedFlow, request: LaunchRequest): Promise<StartedRun | undefined> => launch(deps, flow, request),
    /**
     * Starts a run of the flow's current version; with an idempotency key already used, answers
     * the run that key started (`replayed`). A quota is counted by the statement that records the
     * run; a request that starts no run of its own (a repeated key) is counted alone.
     */
    start: (request: StartRequest): Promise<StartAnswer> =>
      startKeyedRun({ deps, knownFlows, request, runOfKey: () => findRunOfKey(deps, request) }),
  };
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

async function startKeyedRun(start: KeyedStart): Promise<StartAnswer> {
  const { deps, request } = start;
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
  if (runHasEnded(run.status)) return { run, replayed: true };
  // Marked before the start is tried, so that the reconciler, which ends a run it finds
  // never started only if no one has tried since, cannot end it under this start.
  const marked = await deps.prisma.run.updateMany({
    where: { id: run.id, status: { in: [...UNENDED_RUN_STATUSES] } },
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

/**
 * Starts the workflow of a run recorded earlier that may never have started (its start failed
 * with an unknown outcome, or the process died between the record and the start). A workflow
 * already started counts as started.
 */
async function ensureStarted(
  deps: RunStarterDeps,
  run: {
    id: string;
    workspaceId: string;
    flowId: string;
    version: number;
    input: unknown;
    startedAt: Date;
    trigger: RunTrigger;
  },
): Promise<void> {
  const flow = await pinFlow(deps.prisma, deps.nodes, run, { active: false });
  // The input as recorded, sealed at rest: opened for the workflow (whose codec seals it again).
  const input = deps.blobs.seal.open(run.input);
  // A run that opened a debounce window still waits for it (debounce.ts).
  const debounce = flow.definition.debounce ? await openWindowOf(deps, flow.definition.debounce, run.id) : undefined;
  await startWorkflow(deps, flow, { ...run, input, debounce }, { trigger: run.trigger, eager: false });
}

async function startFresh(start: KeyedStart, attempt: StartRequest): Promise<StartAnswer> {
  try {
    return { run: await launchCurrent(start, attempt), replayed: false };
  } catch (error) {
    if (!(error instanceof DuplicateRunKey)) throw error;
    // A concurrent request with the same key won the race: answer with its run.
    const winner = await start.runOfKey();
    if (winner) return answerReplayed(start, winner);
    throw new DuplicateIdempotencyKey();
  }
}

/**
 * Launches a run of the flow's current version: the remembered one, else looked up (and
 * remembered); a flow that changes again between the lookup and the insert is looked up again.
 */
async function launchCurrent({ deps, knownFlows }: KeyedStart, request: StartRequest): Promise<StartedRun> {
  // The quota counts the request in the first statement only.
  let attempt = request;
  // Three lookups at most, after the remembered version (lookup -1) if there is one.
  for (let lookup = knownFlows.knows(request) ? -1 : 0; lookup < 3; lookup++) {
    const flow = await knownFlows.pin(deps.prisma, deps.nodes, request, { lookUp: lookup >= 0 });
    const run = flow.definition.debounce
      ? await launchDebounced(deps, flow, attempt)
      : await launch(deps, flow, attempt);
    if (run) return run;
    attempt = { ...attempt, quota: undefined };
  }
  throw new DomainError("conflict", "conflict", "The flow kept changing while the run started: try again");
}
