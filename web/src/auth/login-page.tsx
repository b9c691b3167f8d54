import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";

export function LoginPage() {
  const queryClient = useQueryClient();
  const form = useForm({ defaultValues: { email: "", password: "" } });
  const login = useMutation({
    mutationFn: (credentials: { email: string; password: string }) =>
      read(client.POST("/api/auth/login", { body: credentials })),
    onSuccess: (session) => queryClient.setQueryData(["session"], session),
  });
  return (
    <div className="login">
      <form onSubmit={form.handleSubmit((credentials) => login.mutate(credentials))}>
        <h1>Log in</h1>
        <label>
          E-mail
          <input type="email" autoComplete="username" required {...form.register("email")} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required {...form.register("password")} />
        </label>
        <ErrorMessage error={login.error ? describeError(login.error) : null} />
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? "Logging in…" : "Log in"}
        </button>
        <p className="muted">
          No account yet? An operator creates one with <code>npm run user:create</code>.
        </p>
      </form>
    </div>
  );
}
