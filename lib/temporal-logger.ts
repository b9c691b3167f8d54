import type { LogLevel, LogMetadata, Logger as TemporalLogger } from "@temporalio/common";
import type { Logger } from "./logger.js";

const LEVELS: Record<LogLevel, "trace" | "debug" | "info" | "warn" | "error"> = {
  TRACE: "trace",
  DEBUG: "debug",
  INFO: "info",
  WARN: "warn",
  ERROR: "error",
};

/** Routes the Temporal SDK's log lines (worker, workflows, activities) into our JSON logger. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => logger[LEVELS[level]](meta ?? {}, message);
  return {
    log,
    trace: (message, meta) => log("TRACE", message, meta),
    debug: (message, meta) => log("DEBUG", message, meta),
    info: (message, meta) => log("INFO", message, meta),
    warn: (message, meta) => log("WARN", message, meta),
    error: (message, meta) => log("ERROR", message, meta),
  };
}
