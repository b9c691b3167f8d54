// The members' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

/** Users of other workspaces are indistinguishable from users that do not exist. */
export class MemberNotFound extends DomainError {
  override name = "MemberNotFound";
  constructor() {
    super("not_found", "not_found", "No such member in this workspace");
  }
}

export class AlreadyMember extends DomainError {
  override name = "AlreadyMember";
  constructor() {
    super("conflict", "conflict", "This user is already a member of the workspace");
  }
}

export class LastOwner extends DomainError {
  override name = "LastOwner";
  constructor() {
    super("conflict", "last_owner", "A workspace needs at least one owner: make someone else owner first");
  }
}

/** The member's role does not allow the change. */
export class MemberChangeForbidden extends DomainError {
  override name = "MemberChangeForbidden";
  constructor(message: string) {
    super("forbidden", "forbidden", message);
  }
}

/** No invite has this token in the workspace (never made, revoked, or mistyped). */
export class InviteNotFound extends DomainError {
  override name = "InviteNotFound";
  constructor() {
    super("not_found", "invite_not_found", "No such invite: it was revoked, or the link is incomplete");
  }
}

/** The link was used already: it works once. */
export class InviteUsed extends DomainError {
  override name = "InviteUsed";
  constructor() {
    super("conflict", "invite_used", "This invite was accepted already: log in instead");
  }
}

export class InviteExpired extends DomainError {
  override name = "InviteExpired";
  constructor() {
    super("gone", "invite_expired", "This invite has expired: ask for a new one");
  }
}

/** An owner invite whose inviter is no longer an owner: it no longer stands. */
export class InviteWithdrawn extends DomainError {
  override name = "InviteWithdrawn";
  constructor() {
    super(
      "gone",
      "invite_withdrawn",
      "This invite to the owner role was made by someone who is no longer an owner: ask an owner for a new one",
    );
  }
}

/** A reset link for a member who also belongs where the caller cannot act: only the operator may issue it. */
export class ResetNeedsOperator extends DomainError {
  override name = "ResetNeedsOperator";
  constructor() {
    super(
      "forbidden",
      "reset_needs_operator",
      "This member also belongs to workspaces you do not manage: only the operator can issue their password reset link (npm run svc -- users reset-link)",
    );
  }
}

/** The operator's reset link for the account is pending: a workspace's owner or admin cannot replace it. */
export class ResetHeldByOperator extends DomainError {
  override name = "ResetHeldByOperator";
  constructor() {
    super(
      "conflict",
      "reset_operator_pending",
      "The operator issued a password reset link for this member that is not used yet: it cannot be replaced from a workspace. It works until it is used or expires; ask the operator for anything else",
    );
  }
}
