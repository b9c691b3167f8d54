// The audit page's view (who, which action, which days, the pages behind) kept in the page's
// address, so a view can be bookmarked and shared; what GET /api/audit is asked for it; and the
// export links of the same filter. Pure: tested without a browser.
import { pathsApiAuditGetResponses200ContentApplicationJsonItemsActionValues as AUDIT_ACTIONS } from "../api-types";

export interface AuditView {
  /** A user's or an API token's id ("": anyone). */
  actor: string;
  /** An action, or a prefix of one ending in "." ("": any). */
  action: string;
  /** The first and last day shown, as the dashboard's local dates (YYYY-MM-DD; "": open). */
  from: string;
  to: string;
  /** The cursors of the pages before the one shown (none: the first page). */
  cursors: string[];
}

const FIELDS = ["actor", "action", "from", "to"] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** How many pages back an address may name. */
const MAX_PAGES = 100;

/** Every action the log records, and the prefixes that group them (flow., credential., …). */
export const ACTIONS: readonly string[] = [...AUDIT_ACTIONS];
export const ACTION_PREFIXES: readonly string[] = [...new Set(ACTIONS.map((action) => `${action.split(".")[0]}.`))];

export function auditViewFromSearch(search: string): AuditView {
  const params = new URLSearchParams(search);
  const read = (field: (typeof FIELDS)[number]) => params.get(field)?.trim() ?? "";
  const day = (field: "from" | "to") => (DAY.test(read(field)) ? read(field) : "");
  return {
    actor: read("actor"),
    action: read("action"),
    from: day("from"),
    to: day("to"),
    // Base64url cursors never hold a ".": the address joins them with it.
    cursors: (params.get("cursors") ?? "")
      .split(".")
      .filter((cursor) => cursor !== "")
      .slice(0, MAX_PAGES),
  };
}

/** The address's query for a view: only what is set, in a fixed order. */
export function searchOfAuditView(view: AuditView): string {
  const params = new URLSearchParams();
  for (const field of FIELDS) if (view[field]) params.set(field, view[field]);
  if (view.cursors.length > 0) params.set("cursors", view.cursors.join("."));
  const search = params.toString();
  return search ? `?${search}` : "";
}

/** The instant a local date begins (the dashboard's time zone), as ISO. */
function startOfLocalDay(day: string, addDays = 0): string {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year!, month! - 1, date! + addDays).toISOString();
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
}

/** What the API is asked for a view: the last day counts whole (until the next day begins). */
export function auditFilter(view: AuditView): AuditFilter {
  return {
    ...(view.actor ? { actor: view.actor } : {}),
    ...(view.action ? { action: view.action } : {}),
    ...(view.from ? { since: startOfLocalDay(view.from) } : {}),
    ...(view.to ? { until: startOfLocalDay(view.to, 1) } : {}),
  };
}

/** The export's path (csv or json) for the same filter as the page. */
export function exportPath(view: AuditView, format: "csv" | "json"): string {
  const params = new URLSearchParams({ ...auditFilter(view), format });
  return `/api/audit?${params.toString()}`;
}

export const isFiltered = (view: AuditView) => FIELDS.some((field) => view[field] !== "");

/** A row's details in a line: `name: Stripe · changed: definition, description`. */
export function detailsLine(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && value !== "")
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join(" · ");
}
