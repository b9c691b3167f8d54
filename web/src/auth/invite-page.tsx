import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import { useSession } from "../session";

/**
 * The page an invite link opens, with or without a session. Logged in as the invited account, one
 * click joins; otherwise a new person sets a name and password, and someone with an account gives
 * its password (the page cannot tell which: the API does not say whether an account has the e-mail).
 * Either way the person lands in the workspace; or declines, and the link stops working.
 */
export function InvitePage({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const session = useSession();
  const form = useForm({ defaultValues: { name: "", password: "" } });
  const [hasAccount, setHasAccount] = useState(false);
  const params = { path: { token } };
  const invite = useQuery({
    queryKey: ["invite", token],
    queryFn: () => read(client.GET("/api/invites/{token}", { params })),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: (body: { name?: string; password?: string }) =>
      read(client.POST("/api/invites/{token}/accept", { params, body })),
    onSuccess: (joined) => {
      // Whatever this browser held before belonged to another session, or to another workspace.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "session" });
      queryClient.setQueryData(["session"], joined);
      navigate("/", { replace: true });
    },
  });
  const decline = useMutation({ mutationFn: () => read(client.POST("/api/invites/{token}/decline", { params })) });
  const data = invite.data;
  const asInvitee = data !== undefined && session.data?.user.email === data.email;
  const submit = form.handleSubmit(({ name, password }) =>
    accept.mutate(asInvitee ? {} : hasAccount ? { password } : { name, password }),
  );
  return (
    <main className="login">
      <form onSubmit={submit}>
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
        {decline.isSuccess && (
          <p className="notice">
            Declined: you did not join, and this link no longer works. <a href="/">Go to the log-in page</a>
          </p>
        )}
        {data && !decline.isSuccess && (
          <>
            <p>
              {data.invited_by ? `${data.invited_by.name} invited you` : "You are invited"} to join{" "}
              <strong>{data.workspace.name}</strong> as {data.role}.
            </p>
            <p className="muted small">E-mail: {data.email}</p>
            {asInvitee ? (
              <p className="muted small">You are logged in with this e-mail: join with one click.</p>
            ) : (
              <AcceptFields form={form} hasAccount={hasAccount} onToggle={() => setHasAccount((has) => !has)} />
            )}
            <ErrorMessage error={accept.error ? describeError(accept.error) : null} />
            <ErrorMessage error={decline.error ? describeError(decline.error) : null} />
            <button type="submit" disabled={accept.isPending}>
              {accept.isPending ? "Joining…" : "Join the workspace"}
            </button>
            <button type="button" disabled={decline.isPending} onClick={() => decline.mutate()}>
              Decline
            </button>
          </>
        )}
      </form>
    </main>
  );
}

/** A new account's name and password, or an existing account's password. */
function AcceptFields({
  form,
  hasAccount,
  onToggle,
}: {
  form: ReturnType<typeof useForm<{ name: string; password: string }>>;
  hasAccount: boolean;
  onToggle: () => void;
}) {
  return (
    <>
      {!hasAccount && (
        <label>
          Your name
          <input autoComplete="name" required maxLength={200} {...form.register("name")} />
        </label>
      )}
      <label>
        {hasAccount ? "Your account's password" : "Choose a password (at least 8 characters)"}
        <input
          type="password"
          autoComplete={hasAccount ? "current-password" : "new-password"}
          required
          minLength={hasAccount ? 1 : 8}
          {...form.register("password")}
        />
      </label>
      <button type="button" className="link" onClick={onToggle}>
        {hasAccount ? "I am new here: create my account" : "I already have an account with this e-mail"}
      </button>
    </>
  );
}
