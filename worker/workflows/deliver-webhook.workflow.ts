// One webhook delivery: an attempt, then durable waits (30 s, 5 min, 30 min by default) before
// each retry, until a 2xx or the last retry. Each attempt is an activity that records itself.
import { proxyActivities, sleep } from "@temporalio/workflow";
import type { WebhookActivities } from "../activities/webhook.activities.js";
import type { DeliverWebhookInput, DeliveryState } from "../../core/contracts/deliver-webhook.js";

export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryState> {
  const { attemptDelivery } = proxyActivities<WebhookActivities>({
    // The POST's own limit plus room to record it; a lost worker is retried, never lost.
    startToCloseTimeout: input.timeoutMs + 30_000,
    retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute" },
  });
  for (let number = 1; ; number++) {
    const nextDelayMs = input.retryDelaysMs[number - 1] ?? null;
    const outcome = await attemptDelivery({
      deliveryId: input.deliveryId,
      number,
      timeoutMs: input.timeoutMs,
      nextDelayMs,
    });
    if (outcome.ok) return "succeeded";
    if (outcome.final || nextDelayMs === null) return "failed";
    await sleep(nextDelayMs);
  }
}
