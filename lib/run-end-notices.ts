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
  waitForEnd<T>(id: string, timeoutMs: number, read: () => Promise<T>, ended: (value: T) => boolean): Promise<T>;
  close(): Promise<void>;
}

interface ListenerOptions {
  databaseUrl: string;
  logger: Logger;
  applicationName?: string;
}

/** One LISTEN connection, reconnected while anyone waits, and the waiters it wakes. */
class RunEndNotices implements RunEndListener {
  /** Wake-up functions of the waiters, by run id. */
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #options: Required<ListenerOptions>;
  #listening: Promise<pg.Client> | undefined;
  #current: pg.Client | undefined;
  #reconnectMs = RECONNECT_MIN_MS;
  #reconnect: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: Required<ListenerOptions>) {
    this.#options = options;
  }

  async waitForEnd<T>(id: string, timeoutMs: number, read: () => Promise<T>, ended: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    const waiter = new Waiter();
    const set = this.#waiters.get(id) ?? new Set();
    this.#waiters.set(id, set);
    set.add(waiter.resume);
    try {
      // Registered first, then read: an end announced after the read wakes us, one before it is seen by it.
      await this.#listen().catch(() => undefined);
      for (;;) {
        waiter.woken = false;
        const value = await read();
        const left = deadline - Date.now();
        if (ended(value) || left <= 0) return value;
        if (!waiter.woken) await waiter.sleep(left);
      }
    } finally {
      set.delete(waiter.resume);
      if (set.size === 0) this.#waiters.delete(id);
    }
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
    this.#waiters.get(id)?.forEach((resume) => resume());
  }

  #wakeAll() {
    this.#waiters.forEach((set) => set.forEach((resume) => resume()));
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
      if (message.channel === RUN_ENDED_CHANNEL && message.payload) this.#wake(message.payload);
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

/** One waiter's wake-up: woken by a notice, or by its time running out while it sleeps. */
class Waiter {
  woken = false;
  #signal = () => {};

  readonly resume = () => {
    this.woken = true;
    this.#signal();
  };

  async sleep(ms: number): Promise<void> {
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
    close: () => notices.close(),
  };
}
