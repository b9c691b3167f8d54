import { pino, type Logger } from "pino";
import type { Config } from "./config.js";

export type { Logger } from "pino";

/** Structured JSON logs on stdout; secrets never reach them through the redact paths. */
export function createLogger(config: Pick<Config, "LOG_LEVEL">, name: string): Logger {
  return pino({
    name,
    level: config.LOG_LEVEL,
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
      ],
      censor: "[redacted]",
    },
  });
}
