// Waiting for a run (or an agent run) to end without polling its record: the statement that ends
// a run also calls pg_notify (delivered when it commits), and each API process keeps one LISTEN
// connection that wakes the requests waiting for that id.
import pg from "pg";
import { Prisma } from "./db.js";
import type { Logger } from "./logger.js";

export const RUN_ENDED_CHANNEL = "svc_run_ended";
/** The listening connection's application_name, as pg_stat_activity shows it. */
export const RUN_END_LISTENER_NAME = "svc run end notices";

/**
 * The SQL expression that announces the end of run `id` (flow run or agent run) at commit; text
 * (empty), as Prisma cannot read pg_notify's void.
 */
export const runEndedNotice = (id: string | Prisma.Sql): Prisma.Sql =>
  Prisma.sql`pg_notify(${RUN_ENDED_CHANNEL}, ${id})::text`;

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;

export interface RunEndListener {
  /**
   * Reads the run now, then again each time its end is announced (and after the listening
   * connection was lost and restored, since announcements may have been missed meanwhile), until
   * `ended` holds or `timeoutMs` passes; the last read is returned.
   */
  waitForEnd<T>(id: string, timeoutMs: number, read: RunRead<T>, ended: (value: T) => boolean): Promise<T>;
  /**
   * Watches run `id` from now on: an end announced after this is not missed. Taken before a run
   * starts, its waiter need not read the run until its end is announced.
   */
  watch(id: string): Promise<RunEndWatch>;
  /**
   * A run this process has just ended, with the record its end wrote: its waiters here take it
   * instead of reading the run again (woken now, not by the notice).
   */
  handOver(id: string, record: unknown): void;
  close(): Promise<void>;
}

/** Reads the run; `handed` is the record handed over by the process that ended it, if it is this one. */
export type RunRead<T> = (handed?: unknown) => Promise<T>;

export interface RunEndWatch {
  /**
   * waitForEnd on the watched run; with `fresh` (the run was started after the watch was taken)
   * the first read waits for the run's end to be announced, if the watch was listening from the start.
   * Once `signal` aborts (its caller is gone), it stops waiting and answers the last read (read
   * then if nothing was read yet).
   */
  until<T>(
    timeoutMs: number,
    read: RunRead<T>,
    ended: (value: T) => boolean,
    options?: { fresh?: boolean; signal?: AbortSignal },
  ): Promise<T>;
  /** Stops watching. */
  close(): void;
}

interface ListenerOptions {
  databaseUrl: string;
  logger: Logger;
  applicationName?: string;
}

/** One LISTEN connection, reconnected while anyone waits, and the waiters it wakes. */
class RunEndNotices implements RunEndListener {
  /** The waiters, by run id. */
  readonly #waiters = new Map<string, Set<Waiter>>();
  readonly #options: Required<ListenerOptions>;
  #listening: Promise<pg.Client> | undefined;
  #current: pg.Client | undefined;
  #reconnectMs = RECONNECT_MIN_MS;
  #reconnect: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: Required<ListenerOptions>) {
    this.#options = options;
  }

  async waitForEnd<T>(id: string, timeoutMs: number, read: RunRead<T>, ended: (value: T) => boolean): Promise<T> {
    const watch = await this.watch(id);
    try {
      return await watch.until(timeoutMs, read, ended);
    } finally {
      watch.close();
    }
  }

  async watch(id: string): Promise<RunEndWatch> {
    const waiter = new Waiter();
    const set = this.#waiters.get(id) ?? new Set();
    this.#waiters.set(id, set);
    set.add(waiter);
    // Registered first, then listening: an end announced from now on wakes the waiter.
    const listening = await this.#listen().then(
      () => true,
      () => false,
    );
    return {
      until: (timeoutMs, read, ended, options = {}) =>
        waiter.until(timeoutMs, read, ended, options.fresh === true && listening, options.signal),
      close: () => {
        set.delete(waiter);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
      },
    };
  }

  handOver(id: string, record: unknown): void {
    this.#waiters.get(id)?.forEach((waiter) => waiter.resume(record));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    const client = await this.#listening?.catch(() => undefined);
    this.#listening = undefined;
    this.#current = undefined;
    await client?.end().catch(() => undefined);
  }

  #wake(id: string) {
    this.#waiters.get(id)?.forEach((waiter) => waiter.resume());
  }

  #wakeAll() {
    this.#waiters.forEach((set) => set.forEach((waiter) => waiter.resume()));
  }

  /** The listening connection: the one there is, or a new one (retried while anyone waits). */
  #listen(): Promise<pg.Client> {
    this.#listening ??= this.#connect().catch((error: unknown) => {
      this.#listening = undefined;
      if (!this.#closed) {
        this.#options.logger.warn({ err: error }, "run end notices: cannot listen, trying again");
        this.#scheduleReconnect();
      }
      throw error;
    });
    return this.#listening;
  }

  async #connect(): Promise<pg.Client> {
    const { databaseUrl, applicationName } = this.#options;
    const client = new pg.Client({ connectionString: databaseUrl, application_name: applicationName });
    client.on("error", (error) => this.#lost(client, error));
    client.on("end", () => this.#lost(client));
    client.on("notification", (message) => {
      const id = message.channel === RUN_ENDED_CHANNEL ? message.payload : undefined;
      // A run this process ended is handed over by it (handOver) as the notice comes: letting the
      // I/O that came with the notice run first lets its waiters take the record, not read it.
      if (id) setImmediate(() => this.#wake(id));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${RUN_ENDED_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners();
      client.on("error", () => undefined);
      void client.end().catch(() => undefined);
      throw error;
    }
    this.#reconnectMs = RECONNECT_MIN_MS;
    this.#current = client;
    return client;
  }

  /** The listening connection is gone: listen again (if anyone waits). */
  #lost(client: pg.Client, error?: Error) {
    if (this.#current !== client) return;
    this.#current = undefined;
    this.#listening = undefined;
    client.removeAllListeners("notification");
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#options.logger.warn({ err: error }, "run end notices: connection lost, listening again");
    this.#scheduleReconnect();
  }

  /** Listens again while anyone waits; waiters re-read once it listens (notices may have been missed). */
  #scheduleReconnect() {
    if (this.#reconnect || this.#closed || this.#waiters.size === 0) return;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      this.#listen().then(
        () => this.#wakeAll(),
        () => undefined,
      );
    }, this.#reconnectMs);
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, RECONNECT_MAX_MS);
  }
}

/** One waiter: woken by a notice or a hand-over, or by its time running out while it sleeps. */
class Waiter {
  woken = false;
  /** The record a hand-over brought, until a read takes it. */
  #handed: unknown;
  #signal = () => {};

  readonly resume = (handed?: unknown) => {
    if (handed !== undefined) this.#handed = handed;
    this.woken = true;
    this.#signal();
  };

  /**
   * Reads until `ended` holds, the time is up or `signal` aborts; with `unread`, the first read
   * waits to be woken.
   */
  async until<T>(
    timeoutMs: number,
    read: RunRead<T>,
    ended: (value: T) => boolean,
    unread: boolean,
    signal?: AbortSignal,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    const stop = () => this.resume();
    signal?.addEventListener("abort", stop, { once: true });
    let last: { value: T } | undefined;
    try {
      for (let skip = unread; ; skip = false) {
        if (!skip) {
          this.woken = false;
          const handed = this.#handed;
          this.#handed = undefined;
          last = { value: await read(handed) };
          if (ended(last.value) || deadline - Date.now() <= 0 || signal?.aborted) return last.value;
        }
        const left = deadline - Date.now();
        if (!this.woken && left > 0 && !signal?.aborted) await this.#sleep(left);
        if (signal?.aborted && last) return last.value;
      }
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#signal = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#signal = () => {};
  }
}

export function createRunEndListener({
  databaseUrl,
  logger,
  applicationName = RUN_END_LISTENER_NAME,
}: ListenerOptions): RunEndListener {
  const notices = new RunEndNotices({ databaseUrl, logger, applicationName });
  return {
    waitForEnd: (id, timeoutMs, read, ended) => notices.waitForEnd(id, timeoutMs, read, ended),
    watch: (id) => notices.watch(id),
    handOver: (id, record) => notices.handOver(id, record),
    close: () => notices.close(),
  };
}
