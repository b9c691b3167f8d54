// The accounts' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

/** The password is right, but someone else chose it: only a reset link's new password opens the account. */
export class PasswordResetRequired extends DomainError {
  override name = "PasswordResetRequired";
  constructor() {
    super(
      "forbidden",
      "password_reset_required",
      "This account's password was set by someone else and no longer opens it: ask an owner or admin of your workspace (or the operator) for a password reset link",
    );
  }
}

/** No reset link has this token (never made, replaced by a newer one, or mistyped). */
export class PasswordResetNotFound extends DomainError {
  override name = "PasswordResetNotFound";
  constructor() {
    super("not_found", "reset_not_found", "No such password reset link: it was replaced, or the link is incomplete");
  }
}

export class PasswordResetUsed extends DomainError {
  override name = "PasswordResetUsed";
  constructor() {
    super("conflict", "reset_used", "This password reset link was used already: log in, or ask for a new one");
  }
}

export class PasswordResetExpired extends DomainError {
  override name = "PasswordResetExpired";
  constructor() {
    super("gone", "reset_expired", "This password reset link has expired: ask for a new one");
  }
}

/**
 * The link no longer stands: the account changed since it was issued (it joined a workspace, its
 * password or e-mail changed), or whoever issued it no longer manages every workspace of it.
 */
export class PasswordResetRevoked extends DomainError {
  override name = "PasswordResetRevoked";
  constructor() {
    super(
      "gone",
      "reset_revoked",
      "This password reset link no longer works: the account changed since it was issued (it joined a workspace, or its password or e-mail changed), or whoever issued it no longer manages every workspace of the account. Ask for a new one",
    );
  }
}
