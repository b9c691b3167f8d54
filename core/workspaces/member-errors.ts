// The members' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError, domainErrorClass } from "../errors.js";

/** Users of other workspaces are indistinguishable from users that do not exist. */
export const MemberNotFound = domainErrorClass(
  "MemberNotFound",
  "not_found",
  "not_found",
  "No such member in this workspace",
);

export const AlreadyMember = domainErrorClass(
  "AlreadyMember",
  "conflict",
  "conflict",
  "This user is already a member of the workspace",
);

export const LastOwner = domainErrorClass(
  "LastOwner",
  "conflict",
  "last_owner",
  "A workspace needs at least one owner: make someone else owner first",
);

/** The member's role does not allow the change. */
export class MemberChangeForbidden extends DomainError {
  override name = "MemberChangeForbidden";
  constructor(message: string) {
    super("forbidden", "forbidden", message);
  }
}

/** No invite has this token in the workspace (never made, revoked, or mistyped). */
export const InviteNotFound = domainErrorClass(
  "InviteNotFound",
  "not_found",
  "invite_not_found",
  "No such invite: it was revoked, or the link is incomplete",
);

/** The link was used already: it works once. */
export const InviteUsed = domainErrorClass(
  "InviteUsed",
  "conflict",
  "invite_used",
  "This invite was accepted already: log in instead",
);

export const InviteExpired = domainErrorClass(
  "InviteExpired",
  "gone",
  "invite_expired",
  "This invite has expired: ask for a new one",
);

/** An owner invite whose inviter is no longer an owner: it no longer stands. */
export const InviteWithdrawn = domainErrorClass(
  "InviteWithdrawn",
  "gone",
  "invite_withdrawn",
  "This invite to the owner role was made by someone who is no longer an owner: ask an owner for a new one",
);

/** A reset link for a member who also belongs where the caller cannot act: only the operator may issue it. */
export const ResetNeedsOperator = domainErrorClass(
  "ResetNeedsOperator",
  "forbidden",
  "reset_needs_operator",
  "This member also belongs to workspaces you do not manage: only the operator can issue their password reset link (npm run svc -- users reset-link)",
);

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
