// The activity of a webhook delivery: one attempt (webhook/attempt-delivery.ts).
import { attemptDelivery, type WebhookActivityDeps } from "./webhook/attempt-delivery.js";
import type { AttemptDeliveryInput } from "../../core/contracts/deliver-webhook.js";

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    /** One attempt of a delivery, recorded once. */
    attemptDelivery: (input: AttemptDeliveryInput) => attemptDelivery(deps, input),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
