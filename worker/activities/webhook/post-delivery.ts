// A webhook delivery's POST: the stored body, signed with the workspace's secrets, through the
// egress guard; what the receiver answered (an excerpt), or why nothing was sent.
import type { Clock } from "../../../lib/clock.js";
import { EgressLimitError, EgressRefusedError, type EgressGuard } from "../../../lib/egress/guarded-fetch.js";
import { deliveryHeaders } from "../../../core/webhooks/signing.js";

const EXCERPT_CHARS = 1000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostResult {
  statusCode?: number;
  error?: string;
  excerpt?: string;
  /** Refused before an answer (by the guard, or a disabled endpoint): another attempt meets the same. */
  refused?: boolean;
}

export interface DeliveryToPost {
  id: string;
  event: string;
  body: string;
  endpoint: { url: string };
}

export async function postDelivery(
  { clock, egress }: { clock: Clock; egress: EgressGuard },
  delivery: DeliveryToPost,
  secrets: string[],
  timeoutMs: number,
): Promise<PostResult> {
  const headers = deliveryHeaders({
    event: delivery.event,
    deliveryId: delivery.id,
    body: delivery.body,
    secrets,
    now: clock.now(),
  });
  try {
    const response = await egress.fetch(delivery.endpoint.url, {
      method: "POST",
      headers,
      body: delivery.body,
      // A redirect is an answer outside 2xx: a failure, not a new target.
      redirect: "manual",
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    const excerpt = await response.text().then(
      (text) => text.slice(0, EXCERPT_CHARS),
      () => "",
    );
    return {
      statusCode: response.status,
      excerpt,
      ...(response.ok ? {} : { error: `The receiver answered ${response.status}` }),
    };
  } catch (error) {
    const refused = error instanceof EgressRefusedError || error instanceof EgressLimitError;
    return { error: (error as Error).message, refused };
  }
}
