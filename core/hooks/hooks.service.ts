// Inbound hooks: the flow behind a hook token, live exactly while the flow is active (read from
// the database on every request, so activation takes effect at once in every API process).
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import type { HookTrigger } from "../contracts/run-flow.js";
import { domainErrorClass } from "../errors.js";
import { storedDefinition } from "../contracts/flow-definition.js";
import { HOOK_TRIGGER_TYPES } from "../nodes/http-trigger/http-trigger.node.js";
import { HOOK_TOKEN } from "../flows/hook-tokens.js";

/** No hook answers at the address: an unknown token, or a flow that is not active or has no HTTP trigger. */
export const HookNotFound = domainErrorClass(
  "HookNotFound",
  "not_found",
  "hook_not_found",
  "No active hook at this address",
);

/** A live hook: its flow and the flow's entry node, the HTTP trigger whose config checks each request. */
export interface LiveHook {
  flowId: string;
  workspaceId: string;
  entry: { id: string; type: HookTrigger; config?: unknown };
}

export function createHooksService({ prisma }: { prisma: PrismaClient }) {
  return {
    /** The live hook of a token, or HookNotFound. */
    async find(token: string): Promise<LiveHook> {
      if (!HOOK_TOKEN.test(token)) throw new HookNotFound();
      const [flow] = await sqlQuery<{ id: string; workspaceId: string; status: string; definition: unknown }>(
        prisma,
        Prisma.sql`SELECT id, workspace_id AS "workspaceId", status::text AS status, definition FROM flows WHERE hook_token = ${token}`,
      );
      const entry =
        flow?.status === "active"
          ? storedDefinition(flow.definition).nodes.find((node) => HOOK_TRIGGER_TYPES.has(node.type))
          : undefined;
      if (!flow || !entry) throw new HookNotFound();
      // HOOK_TRIGGER_TYPES holds the hook triggers only.
      return { flowId: flow.id, workspaceId: flow.workspaceId, entry: { ...entry, type: entry.type as HookTrigger } };
    },
  };
}

export type HooksService = ReturnType<typeof createHooksService>;
