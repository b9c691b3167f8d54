import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeError, post } from "../api";
import { ErrorMessage } from "../components/status-badge";
import type { Session } from "../types";

export function LoginPage() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: () => post<Session>("/api/auth/login", { email, password }),
    onSuccess: (session) => queryClient.setQueryData(["session"], session),
  });
  return (
    <div className="login">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          login.mutate();
        }}
      >
        <h1>Log in</h1>
        <label>
          E-mail
          <input
            name="email"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        <ErrorMessage error={login.error ? describeError(login.error) : null} />
        <button type="submit" disabled={login.isPending}>
          {login.isPending ? "Logging in…" : "Log in"}
        </button>
        <p className="muted">
          No account yet? An operator creates one with <code>npm run user:create</code>.
        </p>
      </form>
    </div>
  );
}
