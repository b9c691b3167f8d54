// The one wording of a port error, for the processes that cannot listen and for npm start,
// which finds a port taken before it starts anything.

/** One line for a port a process cannot listen on, naming the setting that chose it. */
export function portRefusal(
  what: string,
  setting: string,
  host: string,
  port: number,
  error: Error & { code?: string },
  { optional = true }: { optional?: boolean } = {},
): string {
  const reason = error.code === "EADDRINUSE" ? `port ${port} is already in use` : error.message;
  return `${what} cannot listen on ${host}:${port}: ${reason} (set ${setting} to a free port${optional ? ", or 0 to turn it off" : ""})`;
}
