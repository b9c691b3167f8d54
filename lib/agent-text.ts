// An agent's text as the model writes it, from the worker that calls the model to the API
// processes whose clients watch (GET /api/agent/runs/{id}/events): pg_notify on one channel,
// one LISTEN connection per API process, opened when the first watcher comes. Best effort by
// design: a piece lost on the way is only missing from a live view; what is recorded (the step,
// the workflow's history) is the whole answer once, as without streaming.
import pg from "pg";
import type { Logger } from "./logger.js";

export const AGENT_TEXT_CHANNEL = "svc_agent_text";
/** The listening connection's application_name, as pg_stat_activity shows it. */
export const AGENT_TEXT_LISTENER_NAME = "svc agent text";

/** A piece of an agent's model call's text: its run, the call's step number, its order. */
export interface AgentTextPiece {
  agentRunId: string;
  /** The flow run whose ai.agent node started the agent run, if one did. */
  runId?: string;
  number: number;
  seq: number;
  text: string;
}

/** A NOTIFY payload is at most 8,000 bytes: pieces are cut at 1,500 characters (4 bytes each at most). */
const MAX_PIECE_CHARS = 1500;
/** Text is sent this often at most (or as soon as a piece is full). */
const FLUSH_MS = 100;

type Notifier = { $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number> };

/** Publishes one model call's text in pieces; close() sends what is left and waits for it. */
export function createAgentTextPublisher(
  db: Notifier,
  call: { agentRunId: string; runId?: string; number: number },
  logger?: Logger,
) {
  let buffer = "";
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<unknown> = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    while (buffer.length > 0) {
      const piece: AgentTextPiece = { ...call, seq: seq++, text: buffer.slice(0, MAX_PIECE_CHARS) };
      buffer = buffer.slice(MAX_PIECE_CHARS);
      const payload = JSON.stringify(piece);
      sending = sending
        .then(() => db.$executeRaw`SELECT pg_notify(${AGENT_TEXT_CHANNEL}, ${payload})`)
        .catch((err: unknown) => logger?.debug({ err }, "agent text: a piece was not sent"));
    }
  };
  return {
    push(delta: string) {
      buffer += delta;
      if (buffer.length >= MAX_PIECE_CHARS) flush();
      else timer ??= setTimeout(flush, FLUSH_MS);
    },
    async close() {
      flush();
      await sending;
    },
  };
}

export interface AgentTextListener {
  /**
   * Calls `onPiece` with each piece of the agent run's text from now on (or, given a flow run's
   * id, of the agent runs its ai.agent nodes start); the answer stops it.
   */
  subscribe(id: string, onPiece: (piece: AgentTextPiece) => void): Promise<() => void>;
  close(): Promise<void>;
}

const isPiece = (value: unknown): value is AgentTextPiece =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as AgentTextPiece).agentRunId === "string" &&
  typeof (value as AgentTextPiece).number === "number" &&
  typeof (value as AgentTextPiece).seq === "number" &&
  typeof (value as AgentTextPiece).text === "string";

export function createAgentTextListener({ databaseUrl, logger }: { databaseUrl: string; logger: Logger }) {
  const subscribers = new Map<string, Set<(piece: AgentTextPiece) => void>>();
  let listening: Promise<pg.Client> | undefined;
  let closed = false;

  const dispatch = (payload: string | undefined) => {
    let piece: unknown;
    try {
      piece = JSON.parse(payload ?? "");
    } catch {
      return;
    }
    if (!isPiece(piece)) return;
    subscribers.get(piece.agentRunId)?.forEach((onPiece) => onPiece(piece));
    if (typeof piece.runId === "string") subscribers.get(piece.runId)?.forEach((onPiece) => onPiece(piece));
  };
  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: AGENT_TEXT_LISTENER_NAME });
    // A lost connection is listened again by the next subscriber; watchers meanwhile miss pieces.
    const lost = (err?: Error) => {
      if (err) logger.warn({ err }, "agent text: listening connection lost");
      if (listening) listening = undefined;
      client.removeAllListeners("notification");
      void client.end().catch(() => undefined);
    };
    client.on("error", lost);
    client.on("notification", (message) => dispatch(message.payload));
    await client.connect();
    await client.query(`LISTEN ${AGENT_TEXT_CHANNEL}`);
    return client;
  };

  return {
    async subscribe(id, onPiece) {
      if (closed) throw new Error("agent text listener closed");
      const set = subscribers.get(id) ?? new Set();
      subscribers.set(id, set);
      set.add(onPiece);
      const stop = () => {
        set.delete(onPiece);
        if (set.size === 0 && subscribers.get(id) === set) subscribers.delete(id);
      };
      listening ??= connect().catch((error: unknown) => {
        listening = undefined;
        throw error;
      });
      try {
        await listening;
      } catch (error) {
        stop();
        throw error;
      }
      return stop;
    },
    async close() {
      closed = true;
      subscribers.clear();
      const client = await listening?.catch(() => undefined);
      listening = undefined;
      await client?.end().catch(() => undefined);
    },
  } satisfies AgentTextListener;
}
