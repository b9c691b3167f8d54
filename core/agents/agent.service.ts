// Agent runs, their log and their memory. A run is recorded, then its agentRun workflow started
// (workflow id = agent run id); the workflow records every step and ends the run. The factory
// only wires: starting (agent-run-start.ts), reading and cancelling (agent-runs.ts), the log
// (agent-logs.ts) and memory (agent-memory.ts).
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import { createBlobStore } from "../runs/records/blobs.js";
import type { AuditContext, AuditSource } from "../audit/audit-log.js";
import type { Actor } from "../workspaces/actor.js";
import type { AgentContext, AgentServiceDeps } from "./agent-context.js";
import { listAgentLogs, type AgentLogQuery } from "./agent-logs.js";
import { listMemory, readMemoryKey, writeMemory } from "./agent-memory.js";
import { startAgentRun, type AgentStartRequest } from "./agent-run-start.js";
import { agentRunDetail, agentRunStatus, cancelAgentRun } from "./agent-runs.js";

export function createAgentService(deps: AgentServiceDeps) {
  const { prisma, config } = deps;
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const context: AgentContext = { ...deps, seal, blobs };
  return {
    start: (actor: Actor, body: AgentStartRequest) => startAgentRun(context, actor, body),
    get: (workspaceId: string, id: string) => agentRunDetail(context, workspaceId, id),
    status: (workspaceId: string, id: string) => agentRunStatus(context, workspaceId, id),
    cancel: (workspaceId: string, id: string, audit?: AuditContext) => cancelAgentRun(context, workspaceId, id, audit),
    logs: (workspaceId: string, query: AgentLogQuery) => listAgentLogs(context, workspaceId, query),
    readMemoryKey: (workspaceId: string, agent: string, key: string) => readMemoryKey(context, workspaceId, agent, key),
    listMemory: (workspaceId: string, query: Parameters<typeof listMemory>[2]) =>
      listMemory(context, workspaceId, query),
    writeMemory: (actor: Actor, body: Parameters<typeof writeMemory>[2], source?: AuditSource) =>
      writeMemory(context, actor, body, source),
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
