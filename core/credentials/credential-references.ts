// The credentials a flow names: each node config field declared as a credential field (see
// credentialFields), with the types its node accepts. Checked when the flow is saved.
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { credentialFields } from "../nodes/define-node.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { CredentialReference } from "./credentials.service.js";

export function credentialReferences(definition: FlowDefinition, registry: NodeRegistry): CredentialReference[] {
  return definition.nodes.flatMap((node, index) => {
    const type = registry.get(node.type);
    if (!type) return [];
    return [...credentialFields(type)].flatMap(([key, accepts]) => {
      const id = node.config[key];
      return typeof id === "string" ? [{ path: `nodes[${index}].config.${key}`, id, accepts }] : [];
    });
  });
}
