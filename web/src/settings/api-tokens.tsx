// Settings → API tokens: the workspace's tokens for programs (CI jobs, scripts, MCP clients), for
// admins and owners. A new token is shown once, here, to be copied; the list shows its hint, its
// scopes, when and from where it was last used, and revokes it at once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import type { ApiToken, NewApiToken } from "../types";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

const SCOPES = [
  { scope: "read", what: "read flows, runs, logs and settings" },
  { scope: "run", what: "start, cancel and retry runs and agents" },
  { scope: "write", what: "create, change and delete flows" },
  { scope: "admin", what: "settings, credentials, AI keys, webhooks" },
] as const;
type Scope = (typeof SCOPES)[number]["scope"];

const LIFETIMES = [
  { label: "30 days", days: 30 },
  { label: "90 days", days: 90 },
  { label: "1 year", days: 365 },
  { label: "never", days: 0 },
];

interface TokenForm {
  name: string;
  scopes: Scope[];
  days: string;
}

export function ApiTokens() {
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  return (
    <section className="card api-tokens">
      <h2>API tokens</h2>
      <p className="muted small">
        For programs: send <code>Authorization: Bearer &lt;token&gt;</code>. A token acts as this workspace within its
        scopes; what it does is recorded under its id.
      </p>
      <NewTokenForm onCreated={setShown} />
      {shown && <TokenNotice key={shown.token} {...shown} />}
      <TokenList />
    </section>
  );
}

function NewTokenForm({ onCreated }: { onCreated: (created: { name: string; token: string }) => void }) {
  const queryClient = useQueryClient();
  const form = useForm<TokenForm>({ defaultValues: { name: "", scopes: ["read", "run"], days: "90" } });
  const scopes = form.watch("scopes");
  const create = useMutation({
    mutationFn: ({ name, scopes: chosen, days }: TokenForm) =>
      read(
        client.POST("/api/workspace/tokens", {
          body: {
            name,
            scopes: chosen,
            expires_at: Number(days) > 0 ? new Date(Date.now() + Number(days) * 86_400_000).toISOString() : null,
          } as NewApiToken,
        }),
      ),
    onSuccess: (created) => {
      form.reset();
      onCreated({ name: created.name, token: created.token });
      void queryClient.invalidateQueries({ queryKey: ["api-tokens"] });
    },
  });
  return (
    <form className="stack" onSubmit={form.handleSubmit((values) => create.mutate(values))}>
      <input aria-label="Token name" placeholder="Token name (what uses it)" required {...form.register("name")} />
      <fieldset className="events">
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, what }) => (
          <label key={scope} title={what}>
            <input type="checkbox" value={scope} {...form.register("scopes")} />
            {scope} <span className="muted small">({what})</span>
          </label>
        ))}
      </fieldset>
      <label className="field" htmlFor="token-lifetime">
        Expires after
      </label>
      <select id="token-lifetime" {...form.register("days")}>
        {LIFETIMES.map(({ label, days }) => (
          <option key={days} value={String(days)}>
            {label}
          </option>
        ))}
      </select>
      <button type="submit" disabled={create.isPending || scopes.length === 0}>
        Create token
      </button>
      <ErrorMessage error={create.error ? describeError(create.error) : null} />
    </form>
  );
}

function TokenNotice({ name, token }: { name: string; token: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice token-notice" role="status">
      <p>Token “{name}”: copy it now. It is shown only this once; the service keeps only its hash.</p>
      <div className="toolbar">
        <input readOnly aria-label="New API token" value={token} onFocus={(e) => e.target.select()} />
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(token).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy token"}
        </button>
      </div>
    </div>
  );
}

function TokenList() {
  const queryClient = useQueryClient();
  const pages = useCursorPages({ labels: IN_ORDER });
  const tokens = useQuery({
    queryKey: ["api-tokens", pages.cursor],
    queryFn: () =>
      read(client.GET("/api/workspace/tokens", { params: { query: { limit: 50, cursor: pages.cursor } } })),
  });
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => read(client.DELETE("/api/workspace/tokens/{id}", { params: { path: { id } } })),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: ["api-tokens"] });
    },
  });
  const items = tokens.data?.items ?? [];
  const error = tokens.error ?? revoke.error;
  return (
    <>
      <ErrorMessage error={error ? describeError(error) : null} />
      {items.length === 0 ? (
        <p className="empty">No API tokens yet.</p>
      ) : (
        <table className="list">
          <tbody>
            {items.map((t) => (
              <tr key={t.id} data-token={t.name}>
                <td>
                  {t.name}
                  <div className="muted small">
                    <code>{t.hint}</code>
                  </div>
                </td>
                <td>{t.scopes.join(", ")}</td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td className="muted small">
                  {t.last_used_at ? `used ${formatTime(t.last_used_at)} from ${t.last_used_from ?? "?"}` : "never used"}
                  <div>{t.expires_at ? `expires ${formatTime(t.expires_at)}` : "no expiry"}</div>
                </td>
                <td>
                  {t.status !== "revoked" && (
                    <button type="button" className="danger" onClick={() => setRevoking(t)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.pager(tokens.data?.next_cursor)}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this token?"
        confirmLabel="Revoke"
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => setRevoking(null)}
      >
        <p>Programs using “{revoking?.name}” get 401 from their next request on. A revoked token cannot be restored.</p>
      </ConfirmDialog>
    </>
  );
}
