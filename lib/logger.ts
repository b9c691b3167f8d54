import { AsyncLocalStorage } from "node:async_hooks";
import { pino, type DestinationStream, type Logger } from "pino";
import pinoPretty from "pino-pretty";
import type { Config } from "./config.js";

export type { Logger } from "pino";

/** The request being handled, if any: every log line written while handling it carries its id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/**
 * Structured JSON logs on stdout (or `destination`); secrets never reach them through the redact
 * paths, and lines written while a request is handled carry its `request_id`.
 */
export function createLogger(
  config: Pick<Config, "LOG_LEVEL"> & Partial<Pick<Config, "LOG_FORMAT" | "NODE_ENV">>,
  name: string,
  destination?: DestinationStream,
): Logger {
  const options = {
    name,
    level: config.LOG_LEVEL,
    mixin: () => {
      const context = requestContext.getStore();
      return context ? { request_id: context.requestId } : {};
    },
    redact: {
      paths: [
        "req.headers.cookie",
        "req.headers.authorization",
        "password",
        "*.password",
        "databaseUrl",
        "apiKey",
        "*.apiKey",
        "api_key",
        "*.api_key",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "*.OPENAI_API_KEY",
        "*.ANTHROPIC_API_KEY",
        "SVC_ENCRYPTION_KEY",
        "*.SVC_ENCRYPTION_KEY",
        "AI_KEYS_SECRET",
        "*.AI_KEYS_SECRET",
        "SMTP_PASSWORD",
        "*.SMTP_PASSWORD",
      ],
      censor: "[redacted]",
    },
  };
  if (destination) return pino(options, destination);
  const terminal = process.stdout.isTTY === true;
  return logFormat(config, terminal) === "pretty"
    ? pino(options, prettyLines({ colorize: terminal }))
    : pino(options, jsonLines());
}

/**
 * JSON lines on stdout, written asynchronously: a line is handed to the kernel after the code that
 * logged it has run, with the lines logged meanwhile (one write for many under load, not one
 * blocking write per line: an access line each request). Nothing waits to fill a buffer, and pino
 * writes what is left when the process exits.
 */
function jsonLines(): DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

export type LogFormat = "json" | "pretty";

/**
 * JSON lines for machines (log collectors, pipes, files); human lines for a developer at a
 * terminal. LOG_FORMAT decides when set; production and tests stay JSON even at a terminal.
 */
export function logFormat(
  config: Partial<Pick<Config, "LOG_FORMAT" | "NODE_ENV">>,
  stdoutIsTerminal: boolean,
): LogFormat {
  if (config.LOG_FORMAT) return config.LOG_FORMAT;
  return stdoutIsTerminal && (config.NODE_ENV ?? "development") === "development" ? "pretty" : "json";
}

/**
 * One human line per entry, `[12:00:01.123] INFO (api): API listening {"port":3000}`, written
 * synchronously in this process (a worker-thread transport could lose the last lines at exit).
 */
export function prettyLines(options: { colorize: boolean; destination?: DestinationStream }): DestinationStream {
  return pinoPretty({
    colorize: options.colorize,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
    singleLine: true,
    sync: true,
    ...(options.destination ? { destination: options.destination } : {}),
  });
}
