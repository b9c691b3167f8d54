// The waits' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

export class WaitNotFound extends DomainError {
  override name = "WaitNotFound";
  constructor(message = "No such wait in this workspace") {
    super("not_found", "not_found", message);
  }
}

/** The member may not decide this wait: role below the node's least role, or not the named user. */
export class WaitForbidden extends DomainError {
  override name = "WaitForbidden";
  constructor(message = "You may not decide this wait") {
    super("forbidden", "forbidden", message);
  }
}

/** The wait is settled: decided (approved, rejected, resumed), expired, or cancelled with its run. */
export class WaitClosed extends DomainError {
  override name = "WaitClosed";
  constructor(
    readonly status: "decided" | "expired" | "cancelled",
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super("conflict", `wait_${status}`, message, details);
  }
}

/** Approve or reject on a resume wait (resumed through its URL), or the other way round. */
export class WaitWrongMode extends DomainError {
  override name = "WaitWrongMode";
  constructor(message: string) {
    super("conflict", "wait_wrong_mode", message);
  }
}

/** The run has recorded the wait but its workflow has not taken it in yet: try again shortly. */
export class WaitStarting extends DomainError {
  override name = "WaitStarting";
  constructor() {
    super("unavailable", "wait_starting", "The wait is still starting; try again shortly", {}, 1);
  }
}
