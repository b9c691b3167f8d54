// An agent's memory as members read and write it through the API (agents write theirs through
// the memory tools, worker/activities/agent/direct-tools.ts).
import { jsonValue } from "../../lib/db.js";
import { recordAudit, type AuditSource } from "../audit/audit-log.js";
import { actorId, type Actor } from "../workspaces/actor.js";
import type { AgentContext } from "./agent-context.js";
import { MemoryKeyNotFound, MemoryValueTooLarge } from "./agent-errors.js";
import { memoryView } from "./agent-views.js";

const MAX_MEMORY_VALUE_BYTES = 256 * 1024;

type MemoryDeps = Pick<AgentContext, "prisma" | "clock">;

/** One key of an agent's memory. */
export async function readMemoryKey({ prisma }: MemoryDeps, workspaceId: string, agent: string, key: string) {
  const row = await prisma.agentMemory.findUnique({
    where: { workspaceId_agentId_key: { workspaceId, agentId: agent, key } },
  });
  if (!row) throw new MemoryKeyNotFound(agent, key);
  return memoryView(row);
}

/** An agent's memory in key order (by prefix when given); `afterKey` continues after a key a page showed. */
export async function listMemory(
  { prisma }: MemoryDeps,
  workspaceId: string,
  query: { agent: string; prefix?: string; limit: number; afterKey?: string },
) {
  const rows = await prisma.agentMemory.findMany({
    where: {
      workspaceId,
      agentId: query.agent,
      key: {
        ...(query.prefix ? { startsWith: query.prefix } : {}),
        ...(query.afterKey === undefined ? {} : { gt: query.afterKey }),
      },
    },
    orderBy: { key: "asc" },
    take: query.limit,
  });
  return rows.map(memoryView);
}

/**
 * Writes a key of an agent's memory, with its audit row (the agent and the key's name, never the
 * value) in the same transaction; `source` is where the request came from.
 */
export async function writeMemory(
  { prisma, clock }: MemoryDeps,
  actor: Actor,
  body: { agent: string; key: string; value: unknown },
  source: AuditSource = {},
) {
  const bytes = Buffer.byteLength(JSON.stringify(body.value));
  if (bytes > MAX_MEMORY_VALUE_BYTES) {
    throw new MemoryValueTooLarge(MAX_MEMORY_VALUE_BYTES);
  }
  const workspaceId = actor.workspace.workspaceId;
  const now = clock.now();
  const value = jsonValue(body.value);
  const row = await prisma.$transaction(async (tx) => {
    const written = await tx.agentMemory.upsert({
      where: { workspaceId_agentId_key: { workspaceId, agentId: body.agent, key: body.key } },
      create: { workspaceId, agentId: body.agent, key: body.key, value, writtenBy: actorId(actor), updatedAt: now },
      update: { value, agentRunId: null, writtenBy: actorId(actor), updatedAt: now },
    });
    await recordAudit(
      tx,
      clock,
      { actor, source },
      {
        action: "agent_memory.written",
        object: { kind: "agent", id: body.agent },
        details: { agent: body.agent, key: body.key },
      },
    );
    return written;
  });
  return memoryView(row);
}
