/**
 * What a node throws to fail with a clear message. `retryable: false` ends the node at once
 * (a 4xx from an API, a refused address); anything else thrown is retried per the node's policy.
 */
export class NodeError extends Error {
  override name = "NodeError";
  readonly retryable: boolean;
  readonly details?: unknown;

  constructor(message: string, options: { retryable?: boolean; details?: unknown } = {}) {
    super(message);
    this.retryable = options.retryable ?? true;
    this.details = options.details;
  }
}

/** A node's config that is invalid once rendered: never retried, the next attempt would meet it too. */
export class NodeConfigError extends NodeError {
  override name = "NodeConfigError";

  constructor(nodeId: string, message: string) {
    super(`Invalid config of node "${nodeId}": ${message}`, { retryable: false });
  }
}
