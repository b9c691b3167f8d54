// The accounts' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { domainErrorClass } from "../errors.js";

/** The password is right, but someone else chose it: only a reset link's new password opens the account. */
export const PasswordResetRequired = domainErrorClass(
  "PasswordResetRequired",
  "forbidden",
  "password_reset_required",
  "This account's password was set by someone else and no longer opens it: ask an owner or admin of your workspace (or the operator) for a password reset link",
);

/** No reset link has this token (never made, replaced by a newer one, or mistyped). */
export const PasswordResetNotFound = domainErrorClass(
  "PasswordResetNotFound",
  "not_found",
  "reset_not_found",
  "No such password reset link: it was replaced, or the link is incomplete",
);

export const PasswordResetUsed = domainErrorClass(
  "PasswordResetUsed",
  "conflict",
  "reset_used",
  "This password reset link was used already: log in, or ask for a new one",
);

export const PasswordResetExpired = domainErrorClass(
  "PasswordResetExpired",
  "gone",
  "reset_expired",
  "This password reset link has expired: ask for a new one",
);

/**
 * The link no longer stands: the account changed since it was issued (it joined a workspace, its
 * password or e-mail changed), or whoever issued it no longer manages every workspace of it.
 */
export const PasswordResetRevoked = domainErrorClass(
  "PasswordResetRevoked",
  "gone",
  "reset_revoked",
  "This password reset link no longer works: the account changed since it was issued (it joined a workspace, or its password or e-mail changed), or whoever issued it no longer manages every workspace of the account. Ask for a new one",
);
