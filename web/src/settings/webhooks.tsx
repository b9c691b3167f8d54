// Settings, outgoing webhooks: the workspace's endpoints (URL, events, enabled), the signing secret
// shown once on creation, and each endpoint's deliveries with a redeliver button.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import * as Collapsible from "@radix-ui/react-collapsible";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import type { Endpoint, NewEndpoint, Page } from "../types";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

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

/** The workspace's endpoints, a page at a time, and what adding, enabling and deleting one does. */
function useEndpoints(onCreated: (secret: string | null | undefined) => void) {
  const queryClient = useQueryClient();
  const pages = useCursorPages({ labels: IN_ORDER });
  const endpoints = useQuery({
    queryKey: ["webhooks", "page", pages.cursor],
    queryFn: () =>
      read(client.GET("/api/settings/webhooks", { params: { query: { limit: 20, cursor: pages.cursor } } })),
  });
  const create = useMutation({
    mutationFn: (endpoint: { url: string; events: string[] }) =>
      read(client.POST("/api/settings/webhooks", { body: endpoint as NewEndpoint })),
    onSuccess: ({ secret: shown, ...created }) => {
      onCreated(shown);
      // Shown at once on the last page (the list is oldest first), before and whatever the refetch.
      queryClient.setQueryData<Page<Endpoint>>(["webhooks", "page", pages.cursor], (page) =>
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
  return { pages, endpoints, create, toggle, remove };
}

/** One endpoint's line (URL, state, events, actions), opening to its deliveries. */
function EndpointItem(props: {
  endpoint: Endpoint;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onToggle: () => void;
  onRemove: () => void;
}) {
  const { endpoint } = props;
  return (
    <Collapsible.Root asChild open={props.open} onOpenChange={props.onOpenChange}>
      <li data-endpoint={endpoint.url}>
        <div className="endpoint-line">
          <code>{endpoint.url}</code>
          <StatusBadge status={endpoint.enabled ? "enabled" : "disabled"} />
          <span className="muted small">{endpoint.events.join(", ")}</span>
          <span className="spacer" />
          <Collapsible.Trigger asChild>
            <button type="button">Deliveries</button>
          </Collapsible.Trigger>
          <button type="button" onClick={props.onToggle}>
            {endpoint.enabled ? "Disable" : "Enable"}
          </button>
          <button type="button" className="danger" onClick={props.onRemove}>
            Delete
          </button>
        </div>
        <Collapsible.Content>
          <Deliveries endpoint={endpoint} />
        </Collapsible.Content>
      </li>
    </Collapsible.Root>
  );
}

export function Webhooks() {
  const form = useForm({ defaultValues: { url: "", events: EVENTS } });
  const events = form.watch("events");
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { pages, endpoints, create, toggle, remove } = useEndpoints((shown) => {
    form.resetField("url");
    if (shown) setSecret(shown);
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
            <EndpointItem
              key={endpoint.id}
              endpoint={endpoint}
              open={open === endpoint.id}
              onOpenChange={(opened) => setOpen(opened ? endpoint.id : null)}
              onToggle={() => toggle.mutate(endpoint)}
              onRemove={() => remove.mutate(endpoint.id)}
            />
          ))}
        </ul>
      )}
      {pages.pager(endpoints.data?.next_cursor)}
    </section>
  );
}
