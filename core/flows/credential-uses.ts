// Which flows use a credential, in the audit log: one credential.used row per credential a flow's
// new version names and its previous version did not (a new flow: every one it names). Written
// when the version is saved, in its transaction, not once per run: a flow that keeps a credential
// keeps using it, and a run writing a row would grow the log with the traffic, not with changes.
import type { Clock } from "../../lib/clock.js";
import type { Prisma } from "../../lib/db.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { credentialReferences } from "../credentials/credential-references.js";
import type { NodeRegistry } from "../nodes/registry.js";

/** The ids of the nodes that name each credential, by credential id. */
function nodesByCredential(definition: FlowDefinition, nodes: NodeRegistry): Map<string, string[]> {
  const byCredential = new Map<string, string[]>();
  for (const node of definition.nodes) {
    for (const { id } of credentialReferences({ ...definition, nodes: [node] }, nodes)) {
      const nodeIds = byCredential.get(id) ?? [];
      if (!nodeIds.includes(node.id)) nodeIds.push(node.id);
      byCredential.set(id, nodeIds);
    }
  }
  return byCredential;
}

/** Writes credential.used for each credential `definition` names and `previous` (the version before) did not. */
export async function recordCredentialUses(
  tx: Prisma.TransactionClient,
  { clock, nodes }: { clock: Clock; nodes: NodeRegistry },
  audit: AuditContext,
  flow: { id: string; name: string; version: number; definition: FlowDefinition; previous?: FlowDefinition },
): Promise<void> {
  const before = flow.previous ? nodesByCredential(flow.previous, nodes) : new Map<string, string[]>();
  for (const [credentialId, nodeIds] of nodesByCredential(flow.definition, nodes)) {
    if (before.has(credentialId)) continue;
    await recordAudit(tx, clock, audit, {
      action: "credential.used",
      object: { kind: "credential", id: credentialId },
      details: { flow_id: flow.id, flow_name: flow.name, version: flow.version, nodes: nodeIds },
    });
  }
}
