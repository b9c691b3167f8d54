// What the egress guard throws: a refused destination, a limit passed, a time run out.

/** A refused destination: never retried, the message names the rule. */
export class EgressRefusedError extends Error {
  override name = "EgressRefusedError";
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(message);
  }
}

/** A response over a limit (size or redirects): the same request would fail the same way. */
export class EgressLimitError extends Error {
  override name = "EgressLimitError";
}

/** A time limit ran out: worth retrying. */
export class EgressTimeoutError extends Error {
  override name = "EgressTimeoutError";
}
