import type { UserView } from "../users/users.service.js";
import type { Role } from "./permissions.js";

export interface WorkspaceView {
  workspaceId: string;
  name: string;
  role: Role;
}

/** Who acts: a user and the workspace they act in, with their role there (the API's session is one). */
export interface Actor {
  user: UserView;
  workspace: WorkspaceView;
}
