// The runs' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

export class RunNotFound extends DomainError {
  override name = "RunNotFound";
  constructor() {
    super("not_found", "not_found", "No such run in this workspace");
  }
}

/** Only failed or cancelled runs are retried. */
export class RunNotRetryable extends DomainError {
  override name = "RunNotRetryable";
  constructor(status: string) {
    super("conflict", "run_not_retryable", `The run is ${status}: only failed or cancelled runs are retried`);
  }
}

/** Cancelled, but the run has ended (or its workflow never existed). */
export class RunNotRunning extends DomainError {
  override name = "RunNotRunning";
  constructor(message: string) {
    super("conflict", "run_not_running", message);
  }
}

/** Deleted, but the run is still running. */
export class RunRunning extends DomainError {
  override name = "RunRunning";
  constructor() {
    super("conflict", "run_running", "The run is running: cancel it first (POST /api/runs/{id}/cancel)");
  }
}

/** The flow changed between pinning the version a retry runs and recording its run. */
export class RetryRaced extends DomainError {
  override name = "RetryRaced";
  constructor() {
    super("conflict", "conflict", "The flow changed while the run started: try again");
  }
}
