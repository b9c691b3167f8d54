// What a credential picker offers (a node's credential field, an MCP server's credential).
import type { Credential } from "../types";

/** What credential fields offer: none, the workspace's credentials of its types, and the one chosen. */
export function credentialChoices(
  credentials: Credential[] | undefined,
  types: readonly string[],
  chosen: string,
): Array<{ value: string; label: string }> {
  const offered = (credentials ?? [])
    .filter((c) => types.includes(c.type))
    .map((c) => ({ value: c.id, label: `${c.name} (${c.type}${c.hint ? ` ${c.hint}` : ""})` }));
  const known = !chosen || offered.some((choice) => choice.value === chosen);
  // While the list loads the id stands alone; once loaded, an id not in it was deleted (or is another type).
  const missing = known ? [] : [{ value: chosen, label: credentials ? `missing credential ${chosen}` : chosen }];
  return [{ value: "", label: "(none)" }, ...missing, ...offered];
}
