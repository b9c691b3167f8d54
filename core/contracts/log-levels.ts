// The levels of the execution log and the agent log (what env.log and log.write take).

/** From least to most severe: a least level returns it and every level after it. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The levels at or above `level` (undefined without one: all of them). */
export const levelsFrom = (level: LogLevel | undefined) =>
  level === undefined ? undefined : LOG_LEVELS.slice(LOG_LEVELS.indexOf(level));
