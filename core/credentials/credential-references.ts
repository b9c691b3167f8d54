// The credentials a flow names: each node config field declared as a credential field (see
// credentialFields), with the types its node accepts. Checked when the flow is saved.
import type { FlowDefinition, FlowNode } from "../contracts/flow-definition.js";
import { MCP_CREDENTIAL_TYPES } from "../contracts/mcp-servers.js";
import { credentialFields } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { CredentialReference } from "./credentials.service.js";

export function credentialReferences(definition: FlowDefinition, registry: NodeRegistry): CredentialReference[] {
  return definition.nodes.flatMap((node, index) => {
    const type = registry.get(node.type);
    if (!type) return [];
    const fields = [...credentialFields(type)].flatMap(([key, accepts]) => {
      const id = node.config[key];
      return typeof id === "string" ? [{ path: `nodes[${index}].config.${key}`, id, accepts }] : [];
    });
    return "mcp_servers" in type.config.shape ? [...fields, ...mcpServerReferences(node, index)] : fields;
  });
}

/** The credentials of an agent's MCP servers (`mcp_servers[].credential_id`), sent with each request to the server. */
function mcpServerReferences(node: FlowNode, index: number): CredentialReference[] {
  const servers = node.config.mcp_servers;
  if (!Array.isArray(servers)) return [];
  return servers.flatMap((server: unknown, i) => {
    const id = (server as { credential_id?: unknown } | null)?.credential_id;
    return typeof id === "string"
      ? [{ path: `nodes[${index}].config.mcp_servers[${i}].credential_id`, id, accepts: MCP_CREDENTIAL_TYPES }]
      : [];
  });
}
