import { AsyncLocalStorage } from "node:async_hooks";
import { pino, type DestinationStream, type Logger } from "pino";
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
      ],
      censor: "[redacted]",
    },
  };
  if (destination) return pino(options, destination);
  // Human-readable lines for a developer at a terminal; JSON everywhere else.
  const pretty =
    config.LOG_FORMAT === "pretty" ||
    (config.LOG_FORMAT === undefined && config.NODE_ENV === "development" && process.stdout.isTTY === true);
  return pretty
    ? pino(
        options,
        pino.transport({ target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss.l" } }),
      )
    : pino(options);
}
