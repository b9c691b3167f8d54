// What the deliverWebhook workflow and its activity exchange, and who starts it: the outbox
// dispatcher and the webhook settings' pings and redeliveries (core/webhooks/delivery-start.ts).
import { derivedId } from "../../lib/ids.js";

export interface DeliverWebhookInput {
  deliveryId: string;
  /** Waits before each retry; their count is the number of retries. */
  retryDelaysMs: number[];
  /** Time limit of each attempt. */
  timeoutMs: number;
}

export interface AttemptDeliveryInput {
  deliveryId: string;
  /** 1 for the first attempt. */
  number: number;
  timeoutMs: number;
  /** The wait before the next attempt if this one fails; null when it is the last. */
  nextDelayMs: number | null;
}

export interface AttemptOutcome {
  ok: boolean;
  /** True when no further attempt should follow (success, last attempt, refused or gone). */
  final: boolean;
  statusCode?: number;
  error?: string;
}

export type DeliveryState = "pending" | "succeeded" | "failed";

/** One delivery per (event, endpoint): the id derives from both, so dispatching twice is harmless. */
export const deliveryIdFor = (eventId: string, endpointId: string) => derivedId("whd", [eventId, endpointId]);

export const DELIVER_WEBHOOK_WORKFLOW = "deliverWebhook";
