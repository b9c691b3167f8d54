import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";

/**
 * The page a password reset link opens, with or without a session: the person chooses a new
 * password, which ends every session of the account, and is logged in with it.
 */
export function ResetPasswordPage({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const form = useForm({ defaultValues: { password: "", repeated: "" } });
  const reset = useQuery({
    queryKey: ["password-reset", token],
    queryFn: () => read(client.GET("/api/auth/password-resets/{token}", { params: { path: { token } } })),
    retry: false,
  });
  const save = useMutation({
    mutationFn: async ({ password }: { password: string }) => {
      const { email } = await read(
        client.POST("/api/auth/password-resets/{token}", { params: { path: { token } }, body: { password } }),
      );
      return read(client.POST("/api/auth/login", { body: { email, password } }));
    },
    onSuccess: (session) => {
      // Whatever this browser held before belonged to another session.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "session" });
      queryClient.setQueryData(["session"], session);
      navigate("/", { replace: true });
    },
  });
  const mismatch = form.formState.errors.repeated?.message ?? null;
  return (
    <main className="login">
      <form onSubmit={form.handleSubmit((input) => save.mutate(input))}>
        <h1>Set a new password</h1>
        {reset.isPending && <p className="loading">Loading…</p>}
        {reset.error && (
          <>
            <ErrorMessage error={describeError(reset.error)} />
            <p>
              <a href="/">Go to the log-in page</a>
            </p>
          </>
        )}
        {reset.data && (
          <>
            <p className="muted small">Account: {reset.data.email}</p>
            <label>
              New password (at least 8 characters)
              <input
                type="password"
                autoComplete="new-password"
                required
                minLength={8}
                maxLength={256}
                {...form.register("password")}
              />
            </label>
            <label>
              The new password again
              <input
                type="password"
                autoComplete="new-password"
                required
                {...form.register("repeated", {
                  validate: (value, values) => value === values.password || "The two passwords differ",
                })}
              />
            </label>
            <ErrorMessage error={mismatch ?? (save.error ? describeError(save.error) : null)} />
            <p className="muted small">Every session of this account ends: log in again elsewhere.</p>
            <button type="submit" disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Set the password"}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
