// A node that runs once per item of an array, inside its one activity (docs/engine.md, "Items"):
// the items' results in item order are its output. Each finished item is recorded in run_items
// before its slot takes another item (a group commit: one statement for the items finished at the
// same moment), pure nodes' items in chunks with one write per chunk, so that a retried attempt
// (a lost worker) reads what is recorded and runs only the rest: at most the items in flight, or
// one chunk, run again. Progress goes out with the heartbeats, which bring a cancellation back.
import { Context } from "@temporalio/activity";
import type { ApplicationFailure } from "@temporalio/common";
import type { ItemsProgress, ItemsRun, NodeActivityInput } from "../../../core/contracts/run-flow.js";
import { jsonSizeWithin } from "../../../core/flows/json-size.js";
import type { ParsedTemplates, TemplateScope } from "../../../core/flows/template.js";
import type { EachOutcome, NodeDefinition, NodeEnv } from "../../../core/nodes/define-node.js";
import { NodeError } from "../../../core/nodes/node-error.js";
import type { ItemError, ItemRecord } from "../../../core/runs/records/item-records.js";
import { apiKeyFor, meteredModels, nodeEnvFor } from "./node-env.js";
import { configFailure, definitionOf, type NodeActivityParts, toFailure } from "./node-parts.js";
import { configIn, nodeScope, renderOrFail } from "./prepare-node.js";

type ItemsParts = Pick<
  NodeActivityParts,
  | "prisma"
  | "clock"
  | "config"
  | "seal"
  | "blobs"
  | "nodes"
  | "egress"
  | "sandbox"
  | "models"
  | "nodeCredentials"
  | "items"
>;

/** How often a node running per item heartbeats its progress (and hears of a cancellation). */
export const ITEMS_HEARTBEAT_MS = 1000;

/** A pure node's chunk: this many items at most, or what it evaluates in this long. */
const CHUNK_ITEMS = 1000;
const CHUNK_MS = 200;

/** An item run in this attempt: recorded, or failed in a way a later attempt may mend. */
type Outcome = ItemRecord | { index: number; status: "retry"; failure: ApplicationFailure };

/** The progress an attempt reports in its heartbeats (read by the attempt's watch, node-attempt.ts). */
export interface ItemsWatch {
  progress?: ItemsProgress;
}

export async function runItems(
  parts: ItemsParts,
  args: NodeActivityInput,
  { attempt, signal, watch }: { attempt: number; signal: AbortSignal; watch: ItemsWatch },
): Promise<{ output: unknown }> {
  const run = args.items!;
  const definition = definitionOf(parts.nodes, args.type);
  const scope = await nodeScope(parts, args);
  const items = itemsOf(args.nodeId, run, scope);
  await checkLimits(parts, args, items);

  const recorded = await parts.items.begin(args.runId, args.nodeId, items.length);
  const progress = new Progress(items.length, recorded);
  watch.progress = progress.details();
  const stopped = run.onError === "stop" && firstFailure(recorded);
  const pending = stopped ? [] : items.map((_, index) => index).filter((index) => !recorded.has(index));

  const activity = Context.current();
  const beat = () => activity.heartbeat(watch.progress);
  const heartbeats = setInterval(beat, ITEMS_HEARTBEAT_MS);
  try {
    return await runPending(
      parts,
      args,
      { attempt, signal, watch, beat },
      { definition, scope, items, recorded, progress, pending, run },
    );
  } finally {
    clearInterval(heartbeats);
  }
}

async function runPending(
  parts: ItemsParts,
  args: NodeActivityInput,
  { attempt, signal, watch, beat }: { attempt: number; signal: AbortSignal; watch: ItemsWatch; beat: () => void },
  {
    definition,
    scope,
    items,
    recorded,
    progress,
    pending,
    run,
  }: {
    definition: NodeDefinition;
    scope: TemplateScope;
    items: unknown[];
    recorded: Map<number, ItemRecord>;
    progress: Progress;
    pending: number[];
    run: ItemsRun;
  },
): Promise<{ output: unknown }> {
  const context: ItemContext = {
    parts,
    args,
    definition,
    scope,
    items,
    attempt,
    signal,
    pace: pacer(run.ratePerSecond, signal),
    parsed: new Map(),
    env: envMaker(parts, args, attempt, signal),
    write: async (records) => {
      await parts.items.write(args.runId, args.nodeId, attempt, records);
      progress.add(records);
      watch.progress = progress.details();
      beat();
    },
  };
  const outcomes = definition.pure ? await runInChunks(context, pending) : await runInSlots(context, pending);
  if (signal.aborted) throw signal.reason ?? new NodeError("The run was cancelled", { retryable: false });

  for (const outcome of outcomes) if (outcome.status !== "retry") recorded.set(outcome.index, outcome);
  const failed = run.onError === "stop" ? firstFailure(recorded) : undefined;
  if (failed) throw itemFailure(failed);
  const retry = outcomes.find((outcome) => outcome.status === "retry");
  if (retry) {
    const count = outcomes.filter((outcome) => outcome.status === "retry").length;
    throw toFailure(
      new NodeError(
        `${count} of ${items.length} items failed and are tried again: item ${retry.index}: ${retry.failure.message}`,
        {
          retryable: true,
        },
      ),
    );
  }
  return { output: outputOf(items.length, recorded, run) };
}

/** What running one item needs, shared by the items of an attempt. */
interface ItemContext {
  parts: ItemsParts;
  args: NodeActivityInput;
  definition: NodeDefinition;
  scope: TemplateScope;
  items: unknown[];
  attempt: number;
  signal: AbortSignal;
  /** Resolves when the next item may start (rate_per_second). */
  pace: () => Promise<void>;
  env: (config: Record<string, unknown>, index: number) => Promise<NodeEnv>;
  /** The config's templates, parsed once for all the items. */
  parsed: ParsedTemplates;
  /** Records finished items durably, then counts them in the progress. */
  write: (records: ItemRecord[]) => Promise<void>;
}

/** The array the node runs over: `items.from` rendered against the node's scope. */
function itemsOf(nodeId: string, run: ItemsRun, scope: TemplateScope): unknown[] {
  const items = renderOrFail(nodeId, run.from, scope);
  if (!Array.isArray(items)) {
    const kind = items === null || items === undefined ? "nothing" : typeof items;
    throw configFailure(nodeId, `items.from: must give an array, gave ${kind}`);
  }
  return items;
}

/** The server's limits, lowered by the workspace's own (items_max_count, items_max_bytes). */
async function checkLimits(
  { prisma, config }: Pick<ItemsParts, "prisma" | "config">,
  args: NodeActivityInput,
  items: unknown[],
): Promise<void> {
  const workspace = await prisma.workspace.findUnique({
    where: { id: args.workspaceId },
    select: { itemsMaxCount: true, itemsMaxBytes: true },
  });
  const count = limitOf(workspace?.itemsMaxCount, config.ITEMS_MAX_COUNT, "items_max_count", "ITEMS_MAX_COUNT");
  if (items.length > count.max) {
    throw configFailure(args.nodeId, `items.from: ${items.length} items, more than ${count.max} (${count.setting})`);
  }
  const bytes = limitOf(workspace?.itemsMaxBytes, config.ITEMS_MAX_BYTES, "items_max_bytes", "ITEMS_MAX_BYTES");
  if (jsonSizeWithin(items, bytes.max) > bytes.max) {
    throw configFailure(
      args.nodeId,
      `items.from: the items hold more than ${bytes.max} bytes as JSON (${bytes.setting})`,
    );
  }
}

/** The limit in force, and the setting that sets it: the workspace's when it is lower. */
function limitOf(own: number | null | undefined, server: number, ownName: string, serverName: string) {
  return own != null && own < server
    ? { max: own, setting: `this workspace's ${ownName}` }
    : { max: server, setting: `this server's ${serverName}` };
}

/** Each item's env: the node's, with the item's index (a per-item Idempotency-Key) and its config's API key. */
function envMaker(parts: ItemsParts, args: NodeActivityInput, attempt: number, signal: AbortSignal) {
  const base = nodeEnvFor(parts, args, attempt, signal);
  const keys = new Map<string, Promise<string | undefined>>();
  return async (config: Record<string, unknown>, index: number): Promise<NodeEnv> => {
    const keyOf = `${String(config.provider)}\u0000${String(config.credential_id)}`;
    let apiKey = keys.get(keyOf);
    if (!apiKey) keys.set(keyOf, (apiKey = apiKeyFor(parts, args.workspaceId, config)));
    return {
      ...base,
      apiKey: await apiKey,
      ai: meteredModels(parts, args, index),
      run: { ...base.run, itemIndex: index },
    };
  };
}

/** One item through the node's execute(): its record, or a retryable failure left for a later attempt. */
async function runOne(context: ItemContext, index: number): Promise<Outcome> {
  const { definition, args, scope, items } = context;
  try {
    const config = configIn(definition, args, { ...scope, item: items[index], item_index: index }, context.parsed);
    const value = await definition.execute!(items[index], config, await context.env(config, index));
    return { index, status: "success", result: value ?? null };
  } catch (error) {
    return failedItem(context, index, error);
  }
}

/** A failed item: final (recorded) unless it may pass on a later attempt of the node. */
function failedItem({ attempt, args }: Pick<ItemContext, "attempt" | "args">, index: number, error: unknown): Outcome {
  const failure = toFailure(error);
  if (!failure.nonRetryable && attempt < args.items!.maxAttempts) return { index, status: "retry", failure };
  return { index, status: "failed", error: { message: failure.message, code: failure.type ?? "Error" } };
}

/**
 * Items that act outside (calls, writes): `concurrency` slots, each item's record durable before
 * its slot takes the next; records of items finished together go in one statement.
 */
async function runInSlots(context: ItemContext, pending: number[]): Promise<Outcome[]> {
  const run = context.args.items!;
  const commit = groupCommit(context.write);
  const outcomes: Outcome[] = [];
  let next = 0;
  let stop = false;
  const slot = async () => {
    while (!stop && next < pending.length && !context.signal.aborted) {
      const index = pending[next++]!;
      await context.pace();
      if (context.signal.aborted) break;
      const outcome = await runOne(context, index);
      // A cancelled item is not an outcome: the run is being cancelled.
      if (context.signal.aborted) break;
      outcomes.push(outcome);
      if (outcome.status === "retry") {
        if (run.onError === "stop") stop = true;
        continue;
      }
      if (outcome.status === "failed" && run.onError === "stop") stop = true;
      await commit(outcome);
    }
  };
  const slots = Array.from({ length: Math.min(run.concurrency, pending.length) }, slot);
  const settled = await Promise.allSettled(slots);
  const failed = settled.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return outcomes;
}

/**
 * A pure node's items: evaluated a chunk at a time (all at once with executeEach, else through
 * execute with `concurrency` at a time), the chunk's records in one statement.
 */
async function runInChunks(context: ItemContext, pending: number[]): Promise<Outcome[]> {
  const run = context.args.items!;
  const outcomes: Outcome[] = [];
  let at = 0;
  while (at < pending.length && !context.signal.aborted) {
    const { outcomes: evaluated, count } = context.definition.executeEach
      ? await runEach(context, pending.slice(at, at + CHUNK_ITEMS))
      : await evaluatedWithin(context, pending, at);
    at += count;
    if (context.signal.aborted) break;
    outcomes.push(...evaluated);
    await context.write(evaluated.filter((outcome): outcome is ItemRecord => outcome.status !== "retry"));
    const stop = evaluated.some((outcome) => outcome.status !== "success");
    if (stop && run.onError === "stop") break;
    // Other runs' work on this worker (their activities, heartbeats) goes between two chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return outcomes;
}

/** Items of `pending` from `at` through execute(), `concurrency` at a time, until a chunk's count or time is reached. */
async function evaluatedWithin(
  context: ItemContext,
  pending: number[],
  at: number,
): Promise<{ outcomes: Outcome[]; count: number }> {
  const run = context.args.items!;
  const started = Date.now();
  const outcomes: Outcome[] = [];
  let next = at;
  const end = Math.min(pending.length, at + CHUNK_ITEMS);
  let stop = false;
  const slot = async () => {
    while (!stop && next < end && Date.now() - started < CHUNK_MS && !context.signal.aborted) {
      const index = pending[next++]!;
      await context.pace();
      const outcome = await runOne(context, index);
      outcomes.push(outcome);
      if (outcome.status !== "success" && run.onError === "stop") stop = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.concurrency, end - at) }, slot));
  outcomes.sort((a, b) => a.index - b.index);
  return { outcomes, count: next - at };
}

/** A chunk through the node's executeEach: configs rendered per item, one call for the chunk. */
async function runEach(context: ItemContext, chunk: number[]): Promise<{ outcomes: Outcome[]; count: number }> {
  const { definition, args, scope, items } = context;
  const ready: Array<{ index: number; input: unknown; config: Record<string, unknown> }> = [];
  const outcomes = new Map<number, Outcome>();
  for (const index of chunk) {
    await context.pace();
    try {
      const config = configIn(definition, args, { ...scope, item: items[index], item_index: index }, context.parsed);
      ready.push({ index, input: items[index], config });
    } catch (error) {
      outcomes.set(index, failedItem(context, index, error));
    }
  }
  if (ready.length > 0) {
    let answers: EachOutcome[];
    try {
      answers = await definition.executeEach!(ready, await context.env(ready[0]!.config, ready[0]!.index));
    } catch (error) {
      answers = ready.map(() => ({ error }));
    }
    ready.forEach(({ index }, at) => {
      const answer = answers[at]!;
      outcomes.set(
        index,
        "error" in answer
          ? failedItem(context, index, answer.error)
          : { index, status: "success", result: answer.value ?? null },
      );
    });
  }
  return { outcomes: chunk.map((index) => outcomes.get(index)!), count: chunk.length };
}

/**
 * Records items as they finish: those finished while a write is under way go together in the
 * next one. Each item's promise resolves once its record is durable.
 */
function groupCommit(write: (records: ItemRecord[]) => Promise<void>) {
  let waiting: Array<{ record: ItemRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing = false;
  const flush = async () => {
    writing = true;
    // The items finished in this same moment join the first write.
    await new Promise((resolve) => setImmediate(resolve));
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await write(batch.map((entry) => entry.record));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = false;
  };
  return (record: ItemRecord) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ record, resolve, reject });
      if (!writing) void flush();
    });
}

/** Resolves when the next item may start: at most `perSecond` starts a second, evenly spaced. */
function pacer(perSecond: number | undefined, signal: AbortSignal): () => Promise<void> {
  if (!perSecond) return () => Promise.resolve();
  const gapMs = 1000 / perSecond;
  let nextAt = 0;
  return () => {
    const now = Date.now();
    const at = Math.max(now, nextAt);
    nextAt = at + gapMs;
    if (at <= now) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, at - now);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
  };
}

/** The node's progress: recorded items, and the first index below which all are. */
class Progress {
  private done = 0;
  private failed = 0;
  private flushedBelow = 0;
  private readonly seen = new Set<number>();

  constructor(
    private readonly total: number,
    recorded: Map<number, ItemRecord>,
  ) {
    this.add([...recorded.values()]);
  }

  add(records: ItemRecord[]): void {
    for (const record of records) {
      if (this.seen.has(record.index)) continue;
      this.seen.add(record.index);
      if (record.status === "success") this.done += 1;
      else this.failed += 1;
    }
    while (this.seen.has(this.flushedBelow)) this.flushedBelow += 1;
  }

  details(): ItemsProgress {
    return { total: this.total, done: this.done, failed: this.failed, flushedBelow: this.flushedBelow };
  }
}

/** The first recorded failure, by index. */
function firstFailure(recorded: Map<number, ItemRecord>): (ItemRecord & { status: "failed" }) | undefined {
  let first: (ItemRecord & { status: "failed" }) | undefined;
  for (const record of recorded.values()) {
    if (record.status === "failed" && (!first || record.index < first.index)) first = record;
  }
  return first;
}

/** With on_error stop: the node fails with its first failed item's error, for good. */
function itemFailure(failed: { index: number; error: ItemError }): ApplicationFailure {
  return toFailure(
    new NodeError(`Item ${failed.index} failed: ${failed.error.message}`, {
      retryable: false,
      details: { item_index: failed.index, code: failed.error.code },
    }),
  );
}

/** The results in item order: a skipped item left out, a collected one as `{ error }` in its place. */
function outputOf(total: number, recorded: Map<number, ItemRecord>, run: ItemsRun): unknown[] {
  const output: unknown[] = [];
  for (let index = 0; index < total; index += 1) {
    const record = recorded.get(index)!;
    if (record.status === "success") output.push(record.result);
    else if (run.onError === "collect") output.push({ error: record.error });
  }
  return output;
}
