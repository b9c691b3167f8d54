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

export function createRunEndListener({
  databaseUrl,
  logger,
  applicationName = RUN_END_LISTENER_NAME,
}: {
  databaseUrl: string;
  logger: Logger;
  applicationName?: string;
}): RunEndListener {
  /** Wake-up functions of the waiters, by run id. */
  const waiters = new Map<string, Set<() => void>>();
  let listening: Promise<pg.Client> | undefined;
  let current: pg.Client | undefined;
  let reconnectMs = RECONNECT_MIN_MS;
  let reconnect: NodeJS.Timeout | undefined;
  let closed = false;

  const wake = (id: string) => waiters.get(id)?.forEach((resume) => resume());
  const wakeAll = () => waiters.forEach((set) => set.forEach((resume) => resume()));

  function listen(): Promise<pg.Client> {
    listening ??= (async () => {
      const client = new pg.Client({ connectionString: databaseUrl, application_name: applicationName });
      const lost = (error?: Error) => {
        if (current !== client) return;
        current = undefined;
        listening = undefined;
        client.removeAllListeners("notification");
        void client.end().catch(() => undefined);
        if (closed) return;
        logger.warn({ err: error }, "run end notices: connection lost, listening again");
        scheduleReconnect();
      };
      client.on("error", lost);
      client.on("end", () => lost());
      client.on("notification", (message) => {
        if (message.channel === RUN_ENDED_CHANNEL && message.payload) wake(message.payload);
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
      reconnectMs = RECONNECT_MIN_MS;
      current = client;
      return client;
    })().catch((error: unknown) => {
      listening = undefined;
      if (!closed) {
        logger.warn({ err: error }, "run end notices: cannot listen, trying again");
        scheduleReconnect();
      }
      throw error;
    });
    return listening;
  }

  /** Listens again while anyone waits; waiters re-read once it listens (notices may have been missed). */
  function scheduleReconnect() {
    if (reconnect || closed || waiters.size === 0) return;
    reconnect = setTimeout(() => {
      reconnect = undefined;
      listen().then(wakeAll, () => undefined);
    }, reconnectMs);
    reconnectMs = Math.min(reconnectMs * 2, RECONNECT_MAX_MS);
  }

  return {
    async waitForEnd(id, timeoutMs, read, ended) {
      const deadline = Date.now() + timeoutMs;
      let signal = () => {};
      let woken = false;
      const resume = () => {
        woken = true;
        signal();
      };
      const set = waiters.get(id) ?? new Set();
      waiters.set(id, set);
      set.add(resume);
      try {
        // Registered first, then read: an end announced after the read wakes us, one before it is seen by it.
        await listen().catch(() => undefined);
        for (;;) {
          woken = false;
          const value = await read();
          const left = deadline - Date.now();
          if (ended(value) || left <= 0) return value;
          if (!woken) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, left);
              signal = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            signal = () => {};
          }
        }
      } finally {
        set.delete(resume);
        if (set.size === 0) waiters.delete(id);
      }
    },

    async close() {
      closed = true;
      clearTimeout(reconnect);
      const client = await listening?.catch(() => undefined);
      listening = undefined;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
