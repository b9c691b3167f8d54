// Errors of the domain, in its own words: what went wrong and a machine code, no HTTP. api/ maps
// each kind to a status in its one error handler; the worker turns them into step or tool errors.
import type { FlowStatus } from "./contracts/run-flow.js";

/**
 * invalid: the request cannot be done as asked; unauthenticated: who asks is not known (wrong
 * credentials); forbidden: the caller may not do it; not_found:
 * what it names does not exist (in this workspace); conflict: the state of things forbids it now;
 * gone: what it names existed but may no longer be used (an expired link); too_large: a value it
 * was given is over a size the domain keeps; unprocessable: well formed, but what it carries
 * cannot be opened (a sealed value under a key this server lacks); too_many: over a rate limit
 * (retryAfterSeconds says when its window ends); unavailable: a part of the service did not
 * answer, the same request may pass later (retryAfterSeconds says when to try).
 */
export type DomainErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "too_large"
  | "unprocessable"
  | "too_many"
  | "unavailable";

export class DomainError extends Error {
  override name = "DomainError";

  constructor(
    readonly kind: DomainErrorKind,
    /** Machine-readable, stable: the `code` of an API error body. */
    readonly code: string,
    message: string,
    /** Fields a client may act on (the API merges them into its error body). */
    readonly details: Record<string, unknown> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * A domain error that always says the same: its class (so `instanceof` and its name in logs and
 * Temporal failures work as for a written-out subclass) from one row of kind, code and message.
 */
export function domainErrorClass(
  name: string,
  kind: DomainErrorKind,
  code: string,
  message: string,
  retryAfterSeconds?: number,
) {
  return class extends DomainError {
    override name = name;
    constructor() {
      super(kind, code, message, {}, retryAfterSeconds);
    }
  };
}

export const FlowNotFound = domainErrorClass(
  "FlowNotFound",
  "not_found",
  "not_found",
  "No such flow in this workspace",
);

/** Only active flows run. */
export class FlowInactive extends DomainError {
  override name = "FlowInactive";
  constructor(readonly flowStatus: FlowStatus) {
    super("conflict", "flow_not_active", `The flow is ${flowStatus}: only active flows run`, {
      flow_status: flowStatus,
    });
  }
}

/** A version this installation cannot run (a node type it lacks, a graph it cannot plan). */
export class InvalidPlan extends DomainError {
  override name = "InvalidPlan";
  constructor(readonly reason: string) {
    super("conflict", "conflict", `This flow version cannot run here: ${reason}`);
  }
}

/**
 * Temporal did not take what it was asked: `temporal_unavailable` when it could not be reached or
 * was overloaded (a retry may pass), `temporal_refused` when it answered with a refusal (a missing
 * namespace or search attribute: an operator must act).
 */
export class EngineUnavailable extends DomainError {
  override name = "EngineUnavailable";
  constructor(
    code: "temporal_unavailable" | "temporal_refused",
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super("unavailable", code, message, details, code === "temporal_unavailable" ? 5 : 30);
  }

  /** Whether Temporal answered with a refusal (nothing was started); otherwise the outcome may be unknown. */
  get refused() {
    return this.code === "temporal_refused";
  }
}

export const CredentialNotFound = domainErrorClass(
  "CredentialNotFound",
  "not_found",
  "not_found",
  "No such credential in this workspace",
);

/** Flows name the credential: deleting it would fail their runs (unless asked to, `force`). */
export class CredentialInUse extends DomainError {
  override name = "CredentialInUse";
  constructor(readonly flows: Array<{ id: string; name: string }>) {
    super(
      "conflict",
      "credential_in_use",
      `The credential is used by ${flows.length === 1 ? "a flow" : `${flows.length} flows`}: ${flows.map((f) => f.name).join(", ")}; change ${flows.length === 1 ? "it" : "them"} first, or delete with ?force=true`,
      { flows },
    );
  }
}

export class CredentialNameTaken extends DomainError {
  override name = "CredentialNameTaken";
  constructor(credentialName: string) {
    super("conflict", "credential_name_taken", `The workspace already has a credential named "${credentialName}"`);
  }
}

/** Without SVC_ENCRYPTION_KEY nothing can be sealed: the server stores no credentials. */
export class CredentialsDisabled extends DomainError {
  override name = "CredentialsDisabled";
  constructor(code = "credentials_disabled") {
    super(
      "conflict",
      code,
      "This server cannot store credentials: its operator has not set SVC_ENCRYPTION_KEY (README: Credentials)",
    );
  }
}

/** A request's values that the domain refuses, each with the field it concerns. */
export class InvalidInput extends DomainError {
  override name = "InvalidInput";
  constructor(message: string, problems: Array<{ path: string; message: string }>) {
    super("invalid", "validation_failed", message, { details: problems });
  }
}

/** A stored credential this process cannot open: its key is not configured, or the value was altered. */
export class CredentialUnreadable extends DomainError {
  override name = "CredentialUnreadable";
  constructor(reason: string) {
    super("unavailable", "credential_unreadable", `The credential cannot be opened: ${reason}`);
  }
}
