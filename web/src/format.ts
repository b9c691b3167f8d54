export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString();
}

export function formatJson(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

/** A value in one short line: a string as it is, anything else as compact JSON, cut at `max` characters. */
export function peekValue(value: unknown, max = 60): string {
  if (value === null || value === undefined) return "";
  const stored = value as { truncated?: unknown; bytes?: unknown; preview?: unknown };
  if (stored.truncated === true && typeof stored.bytes === "number") {
    return typeof stored.preview === "string"
      ? peekValue(stored.preview, max)
      : `(${stored.bytes} bytes, stored apart)`;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
