import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { ApiTokens } from "./api-tokens";
import { Members } from "./members";
import { Webhooks } from "./webhooks";
import { ErrorMessage } from "../ui/status-badge";
import { useSession } from "../session";
import type { AiProvider } from "../types";

function Password() {
  const form = useForm({ defaultValues: { current_password: "", new_password: "" } });
  const change = useMutation({
    mutationFn: (passwords: { current_password: string; new_password: string }) =>
      read(client.PUT("/api/auth/password", { body: passwords })),
    onSuccess: () => form.reset(),
  });
  return (
    <section className="card">
      <h2>Change password</h2>
      <form className="stack" onSubmit={form.handleSubmit((passwords) => change.mutate(passwords))}>
        <input
          type="password"
          aria-label="Current password"
          placeholder="Current password"
          autoComplete="current-password"
          required
          {...form.register("current_password")}
        />
        <input
          type="password"
          aria-label="New password"
          placeholder="New password"
          autoComplete="new-password"
          required
          {...form.register("new_password")}
        />
        <button type="submit" disabled={change.isPending}>
          Change password
        </button>
      </form>
      <ErrorMessage error={change.error ? describeError(change.error) : null} />
      {change.isSuccess && <p className="notice">Password changed.</p>}
    </section>
  );
}

function AiKeys() {
  const queryClient = useQueryClient();
  const form = useForm({ defaultValues: { provider: "openai", api_key: "" } });
  const keys = useQuery({
    queryKey: ["ai-keys"],
    queryFn: () => read(client.GET("/api/workspace/ai-keys")),
  });
  const set = useMutation({
    mutationFn: ({ provider, api_key }: { provider: string; api_key: string }) =>
      read(
        client.PUT("/api/workspace/ai-keys/{provider}", {
          params: { path: { provider: provider as AiProvider } },
          body: { api_key },
        }),
      ),
    onSuccess: () => {
      form.resetField("api_key");
      void queryClient.invalidateQueries({ queryKey: ["ai-keys"] });
    },
  });
  const remove = useMutation({
    mutationFn: (provider: string) =>
      read(
        client.DELETE("/api/workspace/ai-keys/{provider}", { params: { path: { provider: provider as AiProvider } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["ai-keys"] }),
  });
  return (
    <section className="card">
      <h2>AI keys</h2>
      <ErrorMessage
        error={keys.error ? describeError(keys.error) : remove.error ? describeError(remove.error) : null}
      />
      <ul>
        {(keys.data?.items ?? []).map((k) => (
          <li key={k.provider}>
            {/* No key of the workspace's nor the server's: the API says null. */}
            {k.provider}: {k.source ?? "no key"}
            {k.last4 && <> (…{k.last4})</>}
            {k.source === "workspace" && (
              <button type="button" onClick={() => remove.mutate(k.provider)}>
                Delete
              </button>
            )}
          </li>
        ))}
      </ul>
      {keys.data?.can_store === false ? (
        <p className="muted small">This server cannot store keys (its operator has not set SVC_ENCRYPTION_KEY).</p>
      ) : (
        <form className="toolbar" onSubmit={form.handleSubmit((key) => set.mutate(key))}>
          <select aria-label="Provider" {...form.register("provider")}>
            <option>openai</option>
            <option>anthropic</option>
          </select>
          <input type="password" aria-label="API key" placeholder="API key" required {...form.register("api_key")} />
          <button type="submit">Set key</button>
        </form>
      )}
      <ErrorMessage error={set.error ? describeError(set.error) : null} />
    </section>
  );
}

/** The workspace's error flow: run when a run fails whose flow names none of its own. */
function ErrorFlow() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ["workspace-settings"],
    queryFn: () => read(client.GET("/api/workspace/settings")),
  });
  const flows = useQuery({
    queryKey: ["flows", "picker"],
    queryFn: () => read(client.GET("/api/flows", { params: { query: { limit: 200 } } })),
  });
  const save = useMutation({
    mutationFn: (errorFlowId: string | null) =>
      read(client.PUT("/api/workspace/settings", { body: { error_flow_id: errorFlowId } })),
    onSuccess: (saved) => queryClient.setQueryData(["workspace-settings"], saved),
  });
  return (
    <section className="card">
      <h2>Error flow</h2>
      <p className="muted small">
        Runs when a run fails whose flow names no error flow of its own, with the failed run and its error as input.
      </p>
      <label className="field" htmlFor="workspace-error-flow">
        When a run fails, run
      </label>
      <select
        id="workspace-error-flow"
        value={settings.data?.error_flow_id ?? ""}
        disabled={!settings.data || save.isPending}
        onChange={(e) => save.mutate(e.target.value || null)}
      >
        <option value="">no flow</option>
        {(flows.data?.items ?? []).map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
      </select>
      {save.isSuccess && <p className="notice">Saved.</p>}
      <ErrorMessage
        error={save.error ? describeError(save.error) : settings.error ? describeError(settings.error) : null}
      />
    </section>
  );
}

export function SettingsPage() {
  const role = useSession().data?.workspace.role;
  return (
    <div className="settings">
      <h1>Settings</h1>
      <Webhooks />
      <Members />
      {(role === "admin" || role === "owner") && <ApiTokens />}
      <ErrorFlow />
      <AiKeys />
      <Password />
    </div>
  );
}
