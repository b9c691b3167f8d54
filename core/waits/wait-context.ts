// What the waits service's parts use, built once by createWaitsService.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import type { Logger } from "../../lib/logger.js";
import type { BlobStore } from "../runs/records/blobs.js";

export interface WaitsServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  logger: Logger;
  config: Pick<Config, "RUN_OUTPUT_OFFLOAD_BYTES" | "SVC_ENCRYPTION_KEY">;
}

export interface WaitsContext extends WaitsServiceDeps {
  /** Messages and proposed arguments are sealed at rest. */
  seal: JsonSeal;
  blobs: BlobStore;
}
