import type { LogLevel, LogMetadata, Logger as TemporalLogger } from "@temporalio/common";
// The logger is pino's (lib/logger.ts makes it); named from pino, so this room stands below lib/config.ts.
import type { Logger } from "pino";

const LEVELS: Record<LogLevel, "trace" | "debug" | "info" | "warn" | "error"> = {
  TRACE: "trace",
  DEBUG: "debug",
  INFO: "info",
  WARN: "warn",
  ERROR: "error",
};

/**
 * The SDK's info lines that say nothing to an operator: webpack's multi-line report of the
 * workflow bundle (every process that bundles prints it) and the notice that no Nexus service is
 * registered (this service has none). They go out at debug level; a failed build stays an error.
 */
export function sdkLogLevel(level: LogLevel, message: string): LogLevel {
  if (level !== "INFO") return level;
  const bundleReport = /^webpack \d[\d.]* compiled/m.test(message);
  const noNexus = message.startsWith("No Nexus services registered");
  return bundleReport || noNexus ? "DEBUG" : level;
}

/** Routes the Temporal SDK's log lines (worker, workflows, activities) into our JSON logger. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) =>
    logger[LEVELS[sdkLogLevel(level, message)]](meta ?? {}, message);
  return {
    log,
    trace: (message, meta) => log("TRACE", message, meta),
    debug: (message, meta) => log("DEBUG", message, meta),
    info: (message, meta) => log("INFO", message, meta),
    warn: (message, meta) => log("WARN", message, meta),
    error: (message, meta) => log("ERROR", message, meta),
  };
}
