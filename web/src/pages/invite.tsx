import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { useLocation } from "wouter";
import { api, describeError, post } from "../api";
import { ErrorMessage } from "../components/status-badge";
import type { InvitePreview, Session } from "../types";

/**
 * The page an invite link opens, with or without a session: a new account sets its name and
 * password, an existing one gives its password; either way the person lands in the workspace.
 */
export function InvitePage({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const form = useForm({ defaultValues: { name: "", password: "" } });
  const invite = useQuery({
    queryKey: ["invite", token],
    queryFn: () => api<InvitePreview>(`/api/invites/${encodeURIComponent(token)}`),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: (input: { name: string; password: string }) =>
      post<Session>(
        `/api/invites/${encodeURIComponent(token)}/accept`,
        invite.data?.account_exists ? { password: input.password } : input,
      ),
    onSuccess: (session) => {
      // Whatever this browser held before belonged to another session.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "session" });
      queryClient.setQueryData(["session"], session);
      navigate("/", { replace: true });
    },
  });
  const data = invite.data;
  return (
    <main className="login">
      <form onSubmit={form.handleSubmit((input) => accept.mutate(input))}>
        <h1>Join a workspace</h1>
        {invite.isPending && <p className="loading">Loading…</p>}
        {invite.error && (
          <>
            <ErrorMessage error={describeError(invite.error)} />
            <p>
              <a href="/">Go to the log-in page</a>
            </p>
          </>
        )}
        {data && (
          <>
            <p>
              {data.invited_by ? `${data.invited_by.name} invited you` : "You are invited"} to join{" "}
              <strong>{data.workspace.name}</strong> as {data.role}.
            </p>
            <p className="muted small">E-mail: {data.email}</p>
            {data.account_exists ? (
              <p className="muted small">An account has this e-mail: enter its password to join.</p>
            ) : (
              <label>
                Your name
                <input autoComplete="name" required maxLength={200} {...form.register("name")} />
              </label>
            )}
            <label>
              {data.account_exists ? "Password" : "Choose a password (at least 8 characters)"}
              <input
                type="password"
                autoComplete={data.account_exists ? "current-password" : "new-password"}
                required
                minLength={data.account_exists ? 1 : 8}
                {...form.register("password")}
              />
            </label>
            <ErrorMessage error={accept.error ? describeError(accept.error) : null} />
            <button type="submit" disabled={accept.isPending}>
              {accept.isPending ? "Joining…" : "Join the workspace"}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
