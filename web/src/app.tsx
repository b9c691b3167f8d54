import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useState } from "react";
import { Link, Redirect, Route, Switch, useLocation, useRoute } from "wouter";
import { client, describeError, read } from "./api";
import { AuditPage } from "./audit/audit-page";
import { ErrorMessage } from "./ui/status-badge";
import { PendingWaitsLink, WaitsPage } from "./waits/waits";
import { confirmLeave, leaveWithoutAsking } from "./leave-guard";
import { AgentRunPage, AgentsPage } from "./agents/agents-page";
import { CredentialsPage } from "./credentials/credentials-page";
import { FlowsPage } from "./flows/flows-page";
import { InvitePage } from "./auth/invite-page";
import { LoginPage } from "./auth/login-page";
import { ResetPasswordPage } from "./auth/reset-password-page";
import { RunDetailPage } from "./runs/run-detail-page";
import { RunsPage } from "./runs/runs-page";
import { SettingsPage } from "./settings/settings-page";
import { useSession } from "./session";
import type { Session } from "./types";

// The editor (canvas, CodeMirror) and the charts are the heavy parts: loaded when opened.
const FlowEditorPage = lazy(() => import("./flows/editor-page"));
const HomePage = lazy(() => import("./home/home-page"));
const UsagePage = lazy(() => import("./usage/usage-page"));

function WorkspaceSwitch({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const workspaces = useQuery({
    queryKey: ["workspaces"],
    queryFn: () => read(client.GET("/api/workspaces")),
  });
  const change = useMutation({
    mutationFn: (workspaceId: string) => read(client.PUT("/api/auth/session", { body: { workspaceId } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const items = workspaces.data?.items ?? [];
  if (items.length < 2) return <span className="workspace">{session.workspace.name}</span>;
  return (
    <select
      aria-label="Workspace"
      value={session.workspace.workspaceId}
      onChange={(e) => {
        if (confirmLeave()) change.mutate(e.target.value);
      }}
    >
      {items.map((w) => (
        <option key={w.workspaceId} value={w.workspaceId}>
          {w.name} ({w.role})
        </option>
      ))}
    </select>
  );
}

/** A link of the navigation, marked as the current page's (its pages below it too). */
function NavLink({ href, children }: { href: string; children: React.ReactNode }) {
  const [location] = useLocation();
  const current = href === "/" ? location === "/" : location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className={current ? "active" : undefined} aria-current={current ? "page" : undefined}>
      {children}
    </Link>
  );
}

function Layout({ session, children }: { session: Session; children: React.ReactNode }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const logout = useMutation({
    mutationFn: () => read(client.DELETE("/api/auth/session")),
    onSuccess: () => {
      // The session query stays (its observer shows the login form); everything else was this user's.
      queryClient.setQueryData(["session"], null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "session" });
      // Asked before logging out (the button's click).
      leaveWithoutAsking(() => navigate("/"));
    },
  });
  // Under 768 px the links fold behind a menu button; Esc or following a link folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMenuOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  return (
    <div className="layout">
      <header className={`topbar${menuOpen ? " menu-open" : ""}`}>
        <strong className="brand">svc</strong>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰ </span>Menu
        </button>
        <nav id="main-menu" onClick={() => setMenuOpen(false)}>
          <NavLink href="/">Home</NavLink>
          <NavLink href="/flows">Flows</NavLink>
          <NavLink href="/runs">Runs</NavLink>
          <PendingWaitsLink />
          <NavLink href="/agents">Agents</NavLink>
          <NavLink href="/credentials">Credentials</NavLink>
          <NavLink href="/usage">Usage</NavLink>
          <NavLink href="/settings">Settings</NavLink>
          {["admin", "owner"].includes(session.workspace.role) && <NavLink href="/audit">Audit</NavLink>}
        </nav>
        <span className="spacer" />
        <WorkspaceSwitch session={session} />
        <span className="user">{session.user.email}</span>
        <button type="button" className="logout" onClick={() => confirmLeave() && logout.mutate()}>
          Log out
        </button>
      </header>
      <ErrorMessage error={logout.error ? describeError(logout.error) : null} />
      <main>{children}</main>
    </div>
  );
}

export function App() {
  const session = useSession();
  // An invite's link and a password reset link open their own pages, logged in or not.
  const [isInvite, invite] = useRoute("/invite/:token");
  const [isReset, reset] = useRoute("/reset-password/:token");
  if (isInvite) return <InvitePage token={invite.token} />;
  if (isReset) return <ResetPasswordPage token={reset.token} />;
  if (session.isPending) return <p className="loading">Loading…</p>;
  if (session.error) return <ErrorMessage error={describeError(session.error)} />;
  if (!session.data) return <LoginPage />;
  return (
    <Layout session={session.data}>
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <Switch>
          <Route path="/" component={HomePage} />
          <Route path="/flows" component={FlowsPage} />
          <Route path="/flows/:id">{(params) => <FlowEditorPage id={params.id} />}</Route>
          <Route path="/runs" component={RunsPage} />
          <Route path="/runs/:id">{(params) => <RunDetailPage id={params.id} />}</Route>
          <Route path="/waits" component={WaitsPage} />
          <Route path="/agents" component={AgentsPage} />
          <Route path="/agents/runs/:id">{(params) => <AgentRunPage id={params.id} />}</Route>
          <Route path="/credentials" component={CredentialsPage} />
          <Route path="/usage" component={UsagePage} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/audit" component={AuditPage} />
          <Route path="/login">
            <Redirect to="/" />
          </Route>
          <Route>
            <p>
              No page here. <Link href="/">Go home</Link>.
            </p>
          </Route>
        </Switch>
      </Suspense>
    </Layout>
  );
}
