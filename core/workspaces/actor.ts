import type { UserView } from "../users/users.service.js";
import type { Role } from "./permissions.js";

export interface WorkspaceView {
  workspaceId: string;
  name: string;
  role: Role;
}

/** A person: a user and the workspace they act in, with their role there (the API's session is one). */
export interface MemberActor {
  kind: "member";
  user: UserView;
  workspace: WorkspaceView;
}

/**
 * A program: a workspace API token (core/tokens/). It acts as its workspace, not as a person, and
 * has no role there: what it may do is its scopes', checked by the API before a service is called.
 */
export interface TokenActor {
  kind: "token";
  token: { id: string; name: string };
  workspace: { workspaceId: string; name: string };
}

/** Who acts. Services that only people use take a MemberActor. */
export type Actor = MemberActor | TokenActor;

/** The id a record attributes an action to (created_by, written_by): a user's (usr_…) or a token's (tok_…). */
export function actorId(actor: Actor): string {
  return actor.kind === "member" ? actor.user.id : actor.token.id;
}
