// What the agent service's parts use, built once by createAgentService.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import type { RunEndListener } from "../../lib/run-end-notices.js";
import type { CredentialsService } from "../credentials/credentials.service.js";
import type { BlobStore } from "../runs/records/blobs.js";

export interface AgentServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  logger: Logger;
  config: Pick<
    Config,
    | "TEMPORAL_TASK_QUEUE"
    | "AI_DEFAULT_PROVIDER"
    | "AI_DEFAULT_MODEL"
    | "SVC_ENCRYPTION_KEY"
    | "RUN_OUTPUT_OFFLOAD_BYTES"
  >;
  runEnds: RunEndListener;
  /** Checks the credential an agent run names, as a flow's references are checked when saved. */
  credentials: Pick<CredentialsService, "checkReferences">;
  prepareNamespace?: () => Promise<void>;
}

export interface AgentContext extends AgentServiceDeps {
  /** Instructions, answers, errors, steps and log entries are stored sealed (README: "Data at rest"). */
  seal: JsonSeal;
  blobs: BlobStore;
}
