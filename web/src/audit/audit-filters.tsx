// The audit page's filters: who (a member or an API token of the workspace), which action (one,
// or every action of a kind: flow., credential., …) and which days.
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";
import { ACTION_PREFIXES, ACTIONS, isFiltered, type AuditView } from "./audit-view";

/** The workspace's members and API tokens (revoked ones too: their rows stay), for the person filter. */
function useActors() {
  const members = useQuery({
    queryKey: ["members", "all"],
    queryFn: () => read(client.GET("/api/workspace/members", { params: { query: { limit: 200 } } })),
  });
  const tokens = useQuery({
    queryKey: ["tokens", "all"],
    queryFn: () => read(client.GET("/api/workspace/tokens", { params: { query: { limit: 200 } } })),
  });
  return {
    members: (members.data?.items ?? []).map((m) => ({ id: m.user.id, label: `${m.user.name} <${m.user.email}>` })),
    tokens: (tokens.data?.items ?? []).map((t) => ({ id: t.id, label: `${t.name} (API token)` })),
  };
}

function ActorSelect({ value, onChange }: { value: string; onChange: (actor: string) => void }) {
  const { members, tokens } = useActors();
  const known = [...members, ...tokens].some((actor) => actor.id === value);
  return (
    <select aria-label="Person filter" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Anyone</option>
      {value && !known && <option value={value}>{value}</option>}
      <optgroup label="Members">
        {members.map((m) => (
          <option key={m.id} value={m.id}>
            {m.label}
          </option>
        ))}
      </optgroup>
      {tokens.length > 0 && (
        <optgroup label="API tokens">
          {tokens.map((t) => (
            <option key={t.id} value={t.id}>
              {t.label}
            </option>
          ))}
        </optgroup>
      )}
    </select>
  );
}

function ActionSelect({ value, onChange }: { value: string; onChange: (action: string) => void }) {
  return (
    <select aria-label="Action filter" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Any action</option>
      <optgroup label="Every action of a kind">
        {ACTION_PREFIXES.map((prefix) => (
          <option key={prefix} value={prefix}>
            {prefix}*
          </option>
        ))}
      </optgroup>
      <optgroup label="One action">
        {ACTIONS.map((action) => (
          <option key={action}>{action}</option>
        ))}
      </optgroup>
    </select>
  );
}

export function AuditFilters({ view, onChange }: { view: AuditView; onChange: (view: AuditView) => void }) {
  const set = (field: keyof Omit<AuditView, "cursors">) => (value: string) =>
    onChange({ ...view, [field]: value, cursors: [] });
  return (
    <div className="toolbar filters">
      <ActorSelect value={view.actor} onChange={set("actor")} />
      <ActionSelect value={view.action} onChange={set("action")} />
      <label>
        From <input type="date" aria-label="From day" value={view.from} onChange={(e) => set("from")(e.target.value)} />
      </label>
      <label>
        To <input type="date" aria-label="To day" value={view.to} onChange={(e) => set("to")(e.target.value)} />
      </label>
      {isFiltered(view) && (
        <button
          type="button"
          className="link"
          onClick={() => onChange({ actor: "", action: "", from: "", to: "", cursors: [] })}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}
