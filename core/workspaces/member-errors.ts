// The members' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

/** Users of other workspaces are indistinguishable from users that do not exist. */
export class MemberNotFound extends DomainError {
  override name = "MemberNotFound";
  constructor() {
    super("not_found", "not_found", "No such member in this workspace");
  }
}

/** Added by e-mail, but no account has it, and no name and password were given to create one. */
export class AccountNotFound extends DomainError {
  override name = "AccountNotFound";
  constructor() {
    super("not_found", "user_not_found", "No account has this e-mail; give name and password to create one");
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
