// What a saved definition must pass beyond its schema: credentials that exist and suit their
// nodes, and no run that would start its own flow again.
import { Prisma, sqlQuery } from "../../lib/db.js";
import { credentialReferences } from "../credentials/credential-references.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import type { NodeRegistry } from "../nodes/registry.js";
import type { FlowDefinition } from "../contracts/flow-definition.js";
import { InvalidDefinition } from "./flow-errors.js";
import { findFlowCycle, flowReferences } from "./flow-references.js";
import { validateFlowDefinition } from "./validate.js";

export interface DefinitionCheckDeps {
  nodes: NodeRegistry;
  credentials: Pick<CredentialsService, "checkReferences">;
}

/**
 * A valid definition whose credentials exist in the workspace and suit their nodes, or a 400
 * listing every problem under `definition.`.
 */
export async function checkDefinition(
  { nodes, credentials }: DefinitionCheckDeps,
  workspaceId: string,
  raw: unknown,
): Promise<FlowDefinition> {
  const result = validateFlowDefinition(raw, nodes);
  const problems = result.ok
    ? await credentials.checkReferences(workspaceId, credentialReferences(result.definition, nodes))
    : result.problems;
  if (result.ok && problems.length === 0) return result.definition;
  throw new InvalidDefinition(problems);
}

/**
 * A definition whose runs would start its own flow again (through flow.call, loop or its error
 * flow): a 400. `tx` is the transaction that saves it: a definition that starts other flows takes
 * the workspace's lock of flow references, held until that transaction ends, before it looks, so
 * that two saves closing a cycle between them (X calls Y while Y is saved calling X) do not both
 * pass: the second one looks once the first has committed, and finds the cycle.
 */
export async function refuseCycle(
  nodes: NodeRegistry,
  tx: object,
  target: { workspaceId: string; flowId: string; name: string },
  definition: FlowDefinition,
): Promise<void> {
  if (flowReferences(definition, nodes).length === 0) return;
  await sqlQuery(
    tx,
    Prisma.sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext('flow_references'), hashtext(${target.workspaceId}))) lock`,
  );
  const cycle = await findFlowCycle(tx, nodes, target, definition);
  if (!cycle) return;
  throw new InvalidDefinition([
    {
      path: cycle.reference.path,
      message:
        `${cycle.reference.how} starts this flow again (${cycle.names.join(" → ")}): every run would start ` +
        `another until its run tree's depth limit. Recursion is not supported; use a loop over the items instead`,
    },
  ]);
}
