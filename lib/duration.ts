// Durations written as `250ms`, `30s`, `5m`, `24h` or `7d`. Pure: configuration, node configs
// and workflows share it.

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds, or undefined when malformed. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
}
