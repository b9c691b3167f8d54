// The outgoing webhooks' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

export class WebhookEndpointNotFound extends DomainError {
  override name = "WebhookEndpointNotFound";
  constructor() {
    super("not_found", "not_found", "No such webhook endpoint");
  }
}

export class WebhookDeliveryNotFound extends DomainError {
  override name = "WebhookDeliveryNotFound";
  constructor() {
    super("not_found", "not_found", "No such delivery");
  }
}

/** A test ping goes to enabled endpoints only. */
export class WebhookEndpointDisabled extends DomainError {
  override name = "WebhookEndpointDisabled";
  constructor() {
    super("conflict", "endpoint_disabled", "The endpoint is disabled: enable it first");
  }
}

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
