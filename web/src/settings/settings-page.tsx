import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import * as Collapsible from "@radix-ui/react-collapsible";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { ApiTokens } from "./api-tokens";
import { Members } from "./members";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";
import { formatTime } from "../format";
import { useSession } from "../session";
import type { AiProvider, Endpoint, NewEndpoint, Page } from "../types";

const EVENTS = ["run.started", "run.completed", "run.failed", "flow.updated", "agent.completed", "run.waiting"];

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const deliveries = useQuery({
    queryKey: ["webhooks", endpoint.id, "deliveries", pages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/settings/webhooks/{id}/deliveries", {
          params: { path: { id: endpoint.id }, query: { limit: 20, cursor: pages.cursor } },
        }),
      ),
    refetchInterval: 5_000,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      read(
        client.POST("/api/settings/webhooks/deliveries/{deliveryId}/redeliver", { params: { path: { deliveryId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks", endpoint.id, "deliveries"] }),
  });
  const items = deliveries.data?.items ?? [];
  return (
    <div className="deliveries">
      <ErrorMessage
        error={
          deliveries.error ? describeError(deliveries.error) : redeliver.error ? describeError(redeliver.error) : null
        }
      />
      {items.length === 0 ? (
        <p className="muted small">No deliveries yet: they appear when one of the endpoint's events happens.</p>
      ) : (
        <table className="list">
          <tbody>
            {items.map((d) => {
              const last = d.attempt_log.at(-1);
              return (
                <tr key={d.id}>
                  <td>{d.event}</td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>
                    {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                    {last && ` · last: ${last.status_code ?? last.error ?? "?"}`}
                  </td>
                  <td>{formatTime(d.created_at)}</td>
                  <td>
                    <button type="button" onClick={() => redeliver.mutate(d.id)}>
                      Redeliver
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {pages.pager(deliveries.data?.next_cursor)}
    </div>
  );
}

function Webhooks() {
  const queryClient = useQueryClient();
  const form = useForm({ defaultValues: { url: "", events: EVENTS } });
  const events = form.watch("events");
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const endpointPages = useCursorPages({ labels: IN_ORDER });
  const endpoints = useQuery({
    queryKey: ["webhooks", "page", endpointPages.cursor],
    queryFn: () =>
      read(client.GET("/api/settings/webhooks", { params: { query: { limit: 20, cursor: endpointPages.cursor } } })),
  });
  const create = useMutation({
    mutationFn: (endpoint: { url: string; events: string[] }) =>
      read(client.POST("/api/settings/webhooks", { body: endpoint as NewEndpoint })),
    onSuccess: ({ secret: shown, ...created }) => {
      form.resetField("url");
      if (shown) setSecret(shown);
      // Shown at once on the last page (the list is oldest first), before and whatever the refetch.
      queryClient.setQueryData<Page<Endpoint>>(["webhooks", "page", endpointPages.cursor], (page) =>
        page && page.next_cursor === null && !page.items.some((e) => e.id === created.id)
          ? { ...page, items: [...page.items, created] }
          : page,
      );
      void queryClient.invalidateQueries({ queryKey: ["webhooks"] });
    },
  });
  const toggle = useMutation({
    mutationFn: (e: Endpoint) =>
      read(
        client.PUT("/api/settings/webhooks/{id}", { params: { path: { id: e.id } }, body: { enabled: !e.enabled } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks"] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => read(client.DELETE("/api/settings/webhooks/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks"] }),
  });
  const items = endpoints.data?.items ?? [];
  return (
    <section className="card">
      <h2>Outgoing webhooks</h2>
      <form className="stack" onSubmit={form.handleSubmit((endpoint) => create.mutate(endpoint))}>
        <input
          aria-label="Webhook URL"
          placeholder="https://example.com/hooks/svc"
          required
          {...form.register("url")}
        />
        <fieldset className="events">
          <legend>Events</legend>
          {EVENTS.map((event) => (
            <label key={event}>
              <input type="checkbox" value={event} {...form.register("events")} />
              {event}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || events.length === 0}>
          Add endpoint
        </button>
      </form>
      <ErrorMessage error={create.error ? describeError(create.error) : null} />
      {secret && (
        <div className="notice">
          Signing secret (shown once, keep it now): <code>{secret}</code>
        </div>
      )}
      <ErrorMessage
        error={endpoints.error ? describeError(endpoints.error) : toggle.error ? describeError(toggle.error) : null}
      />
      {items.length === 0 ? (
        <p className="empty">
          No endpoints yet: add a URL above to receive run and flow events, signed with X-SVC-Signature.
        </p>
      ) : (
        <ul className="endpoints">
          {items.map((endpoint) => (
            <Collapsible.Root
              asChild
              key={endpoint.id}
              open={open === endpoint.id}
              onOpenChange={(opened) => setOpen(opened ? endpoint.id : null)}
            >
              <li data-endpoint={endpoint.url}>
                <div className="endpoint-line">
                  <code>{endpoint.url}</code>
                  <StatusBadge status={endpoint.enabled ? "enabled" : "disabled"} />
                  <span className="muted small">{endpoint.events.join(", ")}</span>
                  <span className="spacer" />
                  <Collapsible.Trigger asChild>
                    <button type="button">Deliveries</button>
                  </Collapsible.Trigger>
                  <button type="button" onClick={() => toggle.mutate(endpoint)}>
                    {endpoint.enabled ? "Disable" : "Enable"}
                  </button>
                  <button type="button" className="danger" onClick={() => remove.mutate(endpoint.id)}>
                    Delete
                  </button>
                </div>
                <Collapsible.Content>
                  <Deliveries endpoint={endpoint} />
                </Collapsible.Content>
              </li>
            </Collapsible.Root>
          ))}
        </ul>
      )}
      {endpointPages.pager(endpoints.data?.next_cursor)}
    </section>
  );
}

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
