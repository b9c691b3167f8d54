// The outgoing webhooks' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError, domainErrorClass } from "../errors.js";

export const WebhookEndpointNotFound = domainErrorClass(
  "WebhookEndpointNotFound",
  "not_found",
  "not_found",
  "No such webhook endpoint",
);

export const WebhookDeliveryNotFound = domainErrorClass(
  "WebhookDeliveryNotFound",
  "not_found",
  "not_found",
  "No such delivery",
);

/** A test ping goes to enabled endpoints only. */
export const WebhookEndpointDisabled = domainErrorClass(
  "WebhookEndpointDisabled",
  "conflict",
  "endpoint_disabled",
  "The endpoint is disabled: enable it first",
);

/** An endpoint's URL is a literal address in a range webhooks may not reach (private, loopback, …). */
export class WebhookTargetRefused extends DomainError {
  override name = "WebhookTargetRefused";
  constructor(rule: string) {
    super(
      "invalid",
      "bad_request",
      `The URL points at a ${rule}, which webhooks cannot reach (EGRESS_ALLOWLIST lets one through)`,
      { details: [{ path: "url", message: `is a ${rule}` }] },
    );
  }
}
