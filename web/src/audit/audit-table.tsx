// The audit log's rows, newest first: when, who (a person's e-mail, an API token's name, a wait's
// resume link), from where, what, on which object, and the row's details (names and ids, never a
// secret).
import type { paths } from "../api-types";
import { formatTime } from "../format";
import { detailsLine } from "./audit-view";

export type AuditEvent = paths["/api/audit"]["get"]["responses"]["200"]["content"]["application/json"]["items"][number];

function Who({ actor }: { actor: AuditEvent["actor"] }) {
  if (actor.kind === "system") return <span className="muted">the service</span>;
  return (
    <>
      {actor.label ?? <span className="muted">unknown</span>}
      {/* A token with no id is a wait's resume link (the link has no id of its own). */}
      {actor.kind === "token" && <span className="badge small"> {actor.id === null ? "link" : "API token"}</span>}
    </>
  );
}

export function AuditTable({ items }: { items: AuditEvent[] }) {
  return (
    <table className="list cards audit-log">
      <thead>
        <tr>
          <th>When</th>
          <th>Who</th>
          <th>From</th>
          <th>Action</th>
          <th>Object</th>
          <th>Details</th>
        </tr>
      </thead>
      <tbody>
        {items.map((event) => (
          <tr key={event.id} data-action={event.action}>
            <td data-label="When">
              <time dateTime={event.at}>{formatTime(event.at)}</time>
            </td>
            <td data-label="Who" title={event.actor.id ?? undefined}>
              <Who actor={event.actor} />
            </td>
            <td data-label="From" title={event.user_agent ?? undefined}>
              {event.source_ip ?? <span className="muted">—</span>}
            </td>
            <td data-label="Action">
              <code>{event.action}</code>
            </td>
            <td data-label="Object">
              {event.object ? (
                <>
                  {event.object.kind} <span className="muted small">{event.object.id}</span>
                </>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td data-label="Details" className="small">
              {detailsLine(event.details)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
