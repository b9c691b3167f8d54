// The one wording of a port error, for the processes that cannot listen and for the starters of
// npm start, which find a port taken before they start on it.

/** What listens on each port setting, as its port error names it. */
export const PORT_LISTENERS = {
  PORT: "API",
  TEMPORAL_DEV_PORT: "The Temporal dev server",
  TEMPORAL_DEV_UI_PORT: "The Temporal Web UI",
  EMBEDDED_POSTGRES_PORT: "The embedded PostgreSQL",
  API_METRICS_PORT: "API metrics",
  WORKER_METRICS_PORT: "Worker metrics",
  TEMPORAL_METRICS_PORT: "Temporal SDK metrics",
} as const;

export type PortSetting = keyof typeof PORT_LISTENERS;

/** The ports 0 turns off (the others are needed). */
const CAN_TURN_OFF: ReadonlySet<PortSetting> = new Set([
  "API_METRICS_PORT",
  "WORKER_METRICS_PORT",
  "TEMPORAL_METRICS_PORT",
]);

/** One line for a port that cannot be listened on, naming the setting that chose it. */
export function portRefusal(
  setting: PortSetting,
  host: string,
  port: number,
  cause: (Error & { code?: string }) | "in use" = "in use",
): string {
  const reason = cause === "in use" || cause.code === "EADDRINUSE" ? `port ${port} is already in use` : cause.message;
  const off = CAN_TURN_OFF.has(setting) ? ", or 0 to turn it off" : "";
  return `${PORT_LISTENERS[setting]} cannot listen on ${host}:${port}: ${reason} (set ${setting} to a free port${off})`;
}
