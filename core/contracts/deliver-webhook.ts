// What the deliverWebhook workflow and its activity exchange. Shared by the API (which starts
// deliveries for pings and redeliveries), the dispatcher and the worker.
import { derivedId } from "../../lib/ids.js";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";

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

/** Starts a delivery's workflow (its id is the delivery id); already started counts as started. */
export async function startDeliveryWorkflow(
  temporal: Client,
  options: { taskQueue: string; retryDelaysMs: number[]; timeoutMs: number },
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
