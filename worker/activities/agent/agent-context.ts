// What the agent's activities use, built once by createAgentActivities; each activity takes the
// part it needs.
import type { Clock } from "../../../lib/clock.js";
import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { EgressGuard } from "../../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../../lib/operator-metrics.js";
import type { AiProvider, LanguageModels } from "../../../core/ai/language-models.js";
import type { NodeCredentials } from "../../../core/nodes/define-node.js";
import type { BlobStore } from "../../../core/runs/records/blobs.js";
import type { ChildRunsDeps } from "../../../core/runs/start/child-runs.js";

export interface AgentActivityContext {
  prisma: PrismaClient;
  clock: Clock;
  /** Seals step inputs, outputs, errors and logs at rest. */
  seal: JsonSeal;
  blobs: BlobStore;
  childRuns: ChildRunsDeps;
  egress: EgressGuard;
  models: LanguageModels;
  /** The key of a provider for a workspace: the ai_provider credential named, its own (decrypted) or the server's. */
  apiKeyFor: (workspaceId: string, provider: AiProvider, credentialId?: string) => Promise<string | undefined>;
  /** A workspace's credentials, opened at call time: those of the MCP servers an agent names. */
  credentialsFor: (workspaceId: string) => NodeCredentials;
  metrics?: Pick<WorkerMetrics, "runsStarted" | "agentRuns" | "agentTokens" | "tokens" | "cost">;
}

/** What writes an agent's records. */
export type AgentRecords = Pick<AgentActivityContext, "prisma" | "clock" | "seal">;
