// The queue, fairness, kill timers and replacement that both sandbox pools share
// (js-sandbox-pool.ts says the rules): executors of one kind, each running one evaluation at a time.
import { FairQueue } from "./fair-queue.js";
import {
  inputJsonOf,
  JsSandboxError,
  memoryLimitMessage,
  noOutput,
  timeLimitMessage,
  type EvaluationSubject,
  type JsSandboxLimits,
  type SandboxReply,
} from "./js-sandbox.contract.js";
import type { Executor, ExecutorFactory } from "./sandbox-executors.js";

/** Whose evaluation it is, and when to give it up. */
export interface EvaluationOwner {
  /** Whose evaluation it is: a workspace gets at most half the executors. */
  workspaceId: string;
  /** Aborting gives up the evaluation: it leaves the queue, or its executor is terminated. */
  signal?: AbortSignal;
}

export interface JsSandboxPoolStats {
  /** Ids of the executors alive (starting, idle or busy): thread ids, or process ids. */
  threads: number[];
  busy: number;
  waiting: number;
  /** Executors terminated because their evaluation outlasted its limit or was given up. */
  killed: number;
}

export interface PoolControl {
  stats(): JsSandboxPoolStats;
  /** Terminates every executor; evaluations still running or waiting fail as internal failures. */
  close(): Promise<void>;
}

/** One evaluation of a pool whose executors take `Task` and answer `Result`. */
export interface Submission<Task> extends EvaluationOwner {
  task: Task;
  /** Its time limit (the kill timer) and memory limit (the failure when its executor runs out). */
  limits: JsSandboxLimits;
  subject: EvaluationSubject;
}

interface Job<Task, Result> extends Submission<Task> {
  resolve(result: Result): void;
  reject(error: unknown): void;
  stopListening(): void;
}

interface Slot<Task, Result> {
  executor: Executor;
  ready: boolean;
  job?: Job<Task, Result>;
  killTimer?: NodeJS.Timeout;
}

export interface ExecutorPoolOptions {
  size: number;
  killGraceMs: number;
  executors: ExecutorFactory;
  /** How its internal failures name it ("JavaScript sandbox"). */
  name: string;
}

export class ExecutorPool<Task, Result extends object> implements PoolControl {
  private readonly size: number;
  private readonly perWorkspace: number;
  /** Executors in service (starting, idle or busy). */
  private readonly slots = new Set<Slot<Task, Result>>();
  /** Every executor not yet exited, those being terminated included. */
  private readonly alive = new Set<Slot<Task, Result>>();
  private readonly queue = new FairQueue<Job<Task, Result>>();
  private readonly busyByWorkspace = new Map<string, number>();
  private killed = 0;
  private closed = false;

  constructor(private readonly options: ExecutorPoolOptions) {
    this.size = Math.max(1, Math.floor(options.size));
    this.perWorkspace = Math.ceil(this.size / 2);
  }

  /** The input as JSON for a new evaluation; throws when the pool is shut down or the signal aborted. */
  admit(input: unknown, signal: AbortSignal | undefined): string {
    if (this.closed) throw this.internal("the sandbox is shut down");
    if (signal?.aborted) throw signal.reason;
    return inputJsonOf(input);
  }

  /** Queues an evaluation; settles with its executor's result, or with its failure. */
  submit(submission: Submission<Task>): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const job = this.jobOf(submission, resolve, reject);
      this.queue.push(submission.workspaceId, job);
      this.dispatch();
    });
  }

  stats(): JsSandboxPoolStats {
    let busy = 0;
    for (const slot of this.slots) if (slot.job) busy += 1;
    return {
      threads: [...this.slots].map((slot) => slot.executor.id),
      busy,
      waiting: this.queue.size,
      killed: this.killed,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const shutDown = () => this.internal("the sandbox was shut down (the worker is stopping)");
    for (const job of this.queue.drain()) job.reject(shutDown());
    for (const slot of [...this.slots]) {
      const job = slot.job;
      this.retire(slot);
      job?.reject(shutDown());
    }
    // Killed executors may still be on their way out: wait for those too.
    const ending = [...this.alive];
    for (const slot of ending) slot.executor.terminate();
    await Promise.all(ending.map((slot) => slot.executor.exited));
  }

  /** The submission as a job that settles once, and gives itself up when its signal aborts. */
  private jobOf(
    submission: Submission<Task>,
    resolve: (result: Result) => void,
    reject: (error: unknown) => void,
  ): Job<Task, Result> {
    const { signal, workspaceId } = submission;
    const onAbort = () => {
      if (this.queue.remove(workspaceId, job)) job.reject(signal!.reason);
      else for (const slot of this.slots) if (slot.job === job) this.kill(slot, signal!.reason);
    };
    let settled = false;
    const job: Job<Task, Result> = {
      ...submission,
      resolve(result) {
        if (settled) return;
        settled = true;
        resolve(result);
      },
      reject(error) {
        if (settled) return;
        settled = true;
        job.stopListening();
        reject(error);
      },
      stopListening: () => signal?.removeEventListener("abort", onAbort),
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    return job;
  }

  private internal(message: string): JsSandboxError {
    return new JsSandboxError("internal", `The ${this.options.name} failed: ${message}`, noOutput());
  }

  private busyOf(workspaceId: string): number {
    return this.busyByWorkspace.get(workspaceId) ?? 0;
  }

  private spawn(): void {
    const slot = { ready: false } as Slot<Task, Result>;
    slot.executor = this.options.executors({
      message: (reply) => this.onReply(slot, reply as SandboxReply<Result>),
      ended: ({ outOfMemory, reason }) => this.onEnd(slot, outOfMemory, reason),
    });
    this.slots.add(slot);
    this.alive.add(slot);
    void slot.executor.exited.then(() => this.alive.delete(slot));
  }

  /** Its executor ended (ran out of memory, crashed, exited or was terminated). */
  private onEnd(slot: Slot<Task, Result>, outOfMemory: boolean, reason: string): void {
    if (!this.slots.has(slot)) return;
    const job = slot.job;
    const started = slot.ready;
    this.retire(slot);
    if (job) {
      job.reject(
        outOfMemory
          ? new JsSandboxError("memory_limit", memoryLimitMessage(job.limits, job.subject), noOutput())
          : this.internal(reason),
      );
    }
    // An executor that cannot start would fail again at once: what waits fails now (internal,
    // retried by its activity) rather than spawning executors in a loop.
    if (!started) {
      for (const waiting of this.queue.drain()) waiting.reject(this.internal(`no sandbox executor: ${reason}`));
    }
    this.dispatch();
  }

  /** Forgets an executor (its job, if any, is the caller's to settle). */
  private retire(slot: Slot<Task, Result>): void {
    this.slots.delete(slot);
    clearTimeout(slot.killTimer);
    if (slot.job) {
      this.release(slot.job);
      slot.job = undefined;
    }
  }

  private release(job: Job<Task, Result>): void {
    const { workspaceId } = job;
    const busy = this.busyOf(workspaceId) - 1;
    if (busy > 0) this.busyByWorkspace.set(workspaceId, busy);
    else this.busyByWorkspace.delete(workspaceId);
    job.stopListening();
  }

  /** Terminates a busy executor and fails its evaluation with `error`; dispatch() starts another for what waits. */
  private kill(slot: Slot<Task, Result>, error: unknown): void {
    const job = slot.job;
    this.retire(slot);
    this.killed += 1;
    slot.executor.terminate();
    job?.reject(error);
    this.dispatch();
  }

  private onReply(slot: Slot<Task, Result>, reply: SandboxReply<Result>): void {
    if (!this.slots.has(slot)) return;
    if (reply.type === "ready") {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const job = slot.job;
    if (!job) return;
    clearTimeout(slot.killTimer);
    this.release(job);
    slot.job = undefined;
    if (reply.type === "failure") {
      job.reject(new JsSandboxError(reply.failure, reply.message, reply.output, reply.details));
    } else {
      const { type: _type, ...result } = reply;
      job.resolve(result as unknown as Result);
    }
    this.dispatch();
  }

  private start(slot: Slot<Task, Result>, job: Job<Task, Result>): void {
    const { workspaceId, limits } = job;
    slot.job = job;
    this.busyByWorkspace.set(workspaceId, this.busyOf(workspaceId) + 1);
    slot.executor.ref();
    slot.killTimer = setTimeout(
      () => this.kill(slot, new JsSandboxError("time_limit", timeLimitMessage(limits, job.subject), noOutput())),
      limits.timeLimitMs + this.options.killGraceMs,
    );
    slot.executor.post(job.task);
  }

  /** Gives idle executors the next evaluations in fair order, and starts executors that waiting work can use. */
  private dispatch(): void {
    if (this.closed) return;
    const mayStart = (workspaceId: string) => this.busyOf(workspaceId) < this.perWorkspace;
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const next = this.queue.take(mayStart);
      if (!next) break;
      this.start(slot, next.item);
    }
    for (let missing = this.executorsWanted(); missing > 0; missing -= 1) this.spawn();
    // Idle executors do not keep the process alive; starting and busy ones do, as pending work does.
    for (const slot of this.slots) if (slot.ready && !slot.job) slot.executor.unref();
  }

  /** How many more executors the waiting work could use now, within the pool's size. */
  private executorsWanted(): number {
    let startable = 0;
    for (const [workspaceId, waiting] of this.queue.counts()) {
      startable += Math.min(waiting, Math.max(0, this.perWorkspace - this.busyOf(workspaceId)));
    }
    let free = 0;
    for (const slot of this.slots) if (!slot.job) free += 1;
    return Math.min(startable - free, this.size - this.slots.size);
  }
}
