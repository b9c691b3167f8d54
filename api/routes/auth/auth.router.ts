import { Router } from "express";
import { requireAuth } from "../../auth/authenticate.middleware.js";
import { clearSessionCookie, setSessionCookie } from "../../auth/session-cookie.js";
import type { AuthContext, SessionService } from "../../auth/sessions.service.js";
import { forbidden } from "../../http/errors.js";
import type { PrismaClient } from "../../../lib/db.js";
import { changePasswordSchema, loginSchema, switchWorkspaceSchema } from "./auth.schema.js";
import type { AuthService } from "./auth.service.js";

/** The spec's session shape: `{ authenticated: true, user, workspace }`. */
const sessionView = (context: AuthContext) => ({
  authenticated: true as const,
  user: context.user,
  workspace: context.workspace,
});

export function createAuthRouter({
  auth,
  sessions,
  prisma,
}: {
  auth: AuthService;
  sessions: SessionService;
  prisma: PrismaClient;
}): Router {
  const router = Router();

  router.post("/login", async (req, res) => {
    const input = loginSchema.parse(req.body);
    const { token, context } = await auth.login(input, req.ip ?? "unknown");
    // A session cookie from an earlier login on this browser is replaced, never reused.
    setSessionCookie(res, token);
    res.json(sessionView(context));
  });

  router.get("/session", (req, res) => {
    if (!req.auth) {
      res.status(401).json({ authenticated: false });
      return;
    }
    res.json(sessionView(req.auth));
  });

  router.delete("/session", async (req, res) => {
    if (req.auth) await sessions.end(req.auth.sessionId);
    clearSessionCookie(res);
    res.json({ ok: true });
  });

  /** Switches the session to another workspace the user belongs to. */
  router.put("/session", async (req, res) => {
    const current = requireAuth(req);
    const { workspaceId } = switchWorkspaceSchema.parse(req.body);
    const membership = await prisma.membership.findUnique({
      where: { userId_workspaceId: { userId: current.user.id, workspaceId } },
      select: { role: true },
    });
    if (!membership) throw forbidden("You are not a member of that workspace");
    res.json(sessionView(await sessions.switchWorkspace(current.sessionId, workspaceId)));
  });

  router.put("/password", async (req, res) => {
    const current = requireAuth(req);
    const input = changePasswordSchema.parse(req.body);
    const { token, context } = await auth.changePassword(
      current,
      input.current_password,
      input.new_password,
      req.ip ?? "unknown",
    );
    setSessionCookie(res, token);
    res.json({ ok: true, ...sessionView(context) });
  });

  return router;
}
