// A node's error handling (timeout_ms, retry, on_error) and its items setting: fields of the
// definition's node beside its config, edited through the catalog's settings_schema, whose keys are
// paths ("retry.max_attempts", "items.from").

/** The label of an edge leaving a node's error handle (README "Errors in a node"). */
export const ERROR_BRANCH = "error";

import type { ConfigSchema } from "../types";

// The form's keys: a settings_schema path with "__" for "." (react-hook-form reads dots as nesting).
const GROUPS = ["retry", "items"] as const;
const prefix = (group: string) => `${group}__`;

/** The catalog's settings_schema with the form's keys. */
export const settingsForm = (schema: ConfigSchema | undefined): ConfigSchema | undefined =>
  schema && Object.fromEntries(Object.entries(schema).map(([path, field]) => [path.replace(".", "__"), field]));

/** The node's settings as the form edits them: one value per settingsForm key. */
export function settingsOf(extra: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  if (extra.timeout_ms !== undefined) flat.timeout_ms = extra.timeout_ms;
  if (extra.on_error !== undefined) flat.on_error = extra.on_error;
  for (const group of GROUPS) {
    const values = extra[group];
    if (values && typeof values === "object") {
      for (const [key, value] of Object.entries(values)) flat[`${prefix(group)}${key}`] = value;
    }
  }
  return flat;
}

/** The node's other fields with `settings` in their place: keys left empty are left out (the defaults hold). */
export function withSettings(
  extra: Record<string, unknown>,
  settings: Record<string, unknown>,
): Record<string, unknown> {
  const { timeout_ms: _timeout, on_error: _onError, retry: _retry, items: _items, ...rest } = extra;
  const groupOf = (group: string) =>
    Object.fromEntries(
      Object.entries(settings)
        .filter(([key, value]) => key.startsWith(prefix(group)) && value !== undefined && value !== "")
        .map(([key, value]) => [key.slice(prefix(group).length), value]),
    );
  const retry = groupOf("retry");
  const items = groupOf("items");
  return {
    ...rest,
    ...(settings.timeout_ms !== undefined ? { timeout_ms: settings.timeout_ms } : {}),
    ...(Object.keys(retry).length > 0 ? { retry } : {}),
    // Items run per item only with an array to run over: settings without `from` keep no items.
    ...(items.from !== undefined ? { items } : {}),
    // stop is the default: a node set back to it keeps no on_error.
    ...(settings.on_error !== undefined && settings.on_error !== "stop" ? { on_error: settings.on_error } : {}),
  };
}

/** Whether the node has an error handle to draw edges from. */
export const branchesOnError = (extra: Record<string, unknown>) => extra.on_error === "branch";

/** A failed step whose failure its node handled (on_error continue or branch): the run went on. */
export function handledFailure(step: { status: string; error: unknown }): "continue" | "branch" | null {
  if (step.status !== "failed" || !step.error || typeof step.error !== "object") return null;
  const handled = (step.error as { handled?: unknown }).handled;
  return handled === "continue" || handled === "branch" ? handled : null;
}
