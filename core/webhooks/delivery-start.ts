// The one start of a delivery's deliverWebhook workflow: the outbox dispatcher's deliveries, and
// the API's pings and redeliveries.
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookInput } from "../contracts/deliver-webhook.js";

/** How each delivery's workflow runs: its queue, retry delays and time limit per attempt. */
export interface DeliveryStartOptions {
  taskQueue: string;
  retryDelaysMs: number[];
  timeoutMs: number;
}

/** Starts a delivery's workflow (its id is the delivery id); already started counts as started. */
export async function startDeliveryWorkflow(
  temporal: Client,
  options: DeliveryStartOptions,
  deliveryId: string,
): Promise<void> {
  try {
    await temporal.workflow.start(DELIVER_WEBHOOK_WORKFLOW, {
      workflowId: deliveryId,
      taskQueue: options.taskQueue,
      args: [
        {
          deliveryId,
          retryDelaysMs: options.retryDelaysMs,
          timeoutMs: options.timeoutMs,
        } satisfies DeliverWebhookInput,
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
