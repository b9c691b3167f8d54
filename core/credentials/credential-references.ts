// The credentials a flow names: each node config field declared as a credential field (see
// credentialFields), with the types its node accepts, and those inside a node's lists (an agent's
// MCP servers, a model node's fallbacks). Checked when the flow is saved.
import type { FlowDefinition, FlowNode } from "../contracts/flow-definition.js";
import { MCP_CREDENTIAL_TYPES } from "../contracts/mcp-servers.js";
import { credentialFields } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { CredentialReference } from "./credentials.service.js";

/**
 * Config lists whose entries may name a credential (`<list>[].credential_id`), with the types
 * accepted: an agent's MCP servers (sent with each request to the server) and a model node's
 * fallbacks (their providers' keys).
 */
const CREDENTIAL_LISTS: ReadonlyArray<readonly [list: string, accepts: readonly string[]]> = [
  ["mcp_servers", MCP_CREDENTIAL_TYPES],
  ["fallbacks", ["ai_provider"]],
];

export function credentialReferences(definition: FlowDefinition, registry: NodeRegistry): CredentialReference[] {
  return definition.nodes.flatMap((node, index) => {
    const type = registry.get(node.type);
    if (!type) return [];
    const fields = [...credentialFields(type)].flatMap(([key, accepts]) => {
      const id = node.config[key];
      return typeof id === "string" ? [{ path: `nodes[${index}].config.${key}`, id, accepts }] : [];
    });
    const lists = CREDENTIAL_LISTS.filter(([list]) => list in type.config.shape).flatMap(([list, accepts]) =>
      listReferences(node, index, list, accepts),
    );
    return [...fields, ...lists];
  });
}

/** The credentials named by the entries of one of a node's config lists. */
function listReferences(
  node: FlowNode,
  index: number,
  list: string,
  accepts: readonly string[],
): CredentialReference[] {
  const entries = node.config[list];
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown, at) => {
    const id = (entry as { credential_id?: unknown } | null)?.credential_id;
    return typeof id === "string" ? [{ path: `nodes[${index}].config.${list}[${at}].credential_id`, id, accepts }] : [];
  });
}
