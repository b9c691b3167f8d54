// What the webhook settings' parts use, built once by createWebhooksService.
import type { Client } from "@temporalio/client";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import type { PrismaClient } from "../../lib/db.js";
import type { parseAllowlist } from "../../lib/egress/address-policy.js";
import type { DeliveryStartOptions } from "./delivery-start.js";

export interface WebhooksServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  temporal: Client;
  config: Pick<
    Config,
    "TEMPORAL_TASK_QUEUE" | "WEBHOOK_RETRY_DELAYS" | "WEBHOOK_TIMEOUT" | "WEBHOOK_SECRET_GRACE" | "EGRESS_ALLOWLIST"
  >;
}

export interface WebhooksContext extends WebhooksServiceDeps {
  /** Hosts and addresses EGRESS_ALLOWLIST lets through though private. */
  allowlist: ReturnType<typeof parseAllowlist>;
  /** How each delivery's workflow runs: its queue, retry delays and timeout. */
  startOptions: DeliveryStartOptions;
}
