// A step's or a run's error in words: its message, else the whole value as JSON.
import { formatJson } from "../format";

export function errorText(error: unknown): string {
  if (error === null || error === undefined) return "";
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" ? message : formatJson(error);
}
