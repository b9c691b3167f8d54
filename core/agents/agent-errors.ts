// The agents' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError, domainErrorClass } from "../errors.js";

export const AgentRunNotFound = domainErrorClass(
  "AgentRunNotFound",
  "not_found",
  "not_found",
  "No such agent run in this workspace",
);

/** Cancelled, but the agent run has ended. */
export class AgentRunNotRunning extends DomainError {
  override name = "AgentRunNotRunning";
  constructor(status: string) {
    super("conflict", "not_running", `The agent run is already ${status}`);
  }
}

export class MemoryKeyNotFound extends DomainError {
  override name = "MemoryKeyNotFound";
  constructor(agent: string, key: string) {
    super("not_found", "not_found", `Agent ${agent} has no memory under "${key}"`);
  }
}

export class MemoryValueTooLarge extends DomainError {
  override name = "MemoryValueTooLarge";
  constructor(maxBytes: number) {
    super("too_large", "payload_too_large", `A memory value holds at most ${maxBytes} bytes of JSON`);
  }
}
