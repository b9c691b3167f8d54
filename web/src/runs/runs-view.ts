// The runs page's view (filters, time window, id search) kept in the page's address, so a view can be
// bookmarked and shared; and what the API's list is asked for it. Pure: tested without a browser.
import { RUN_TRIGGERS, type RunsQuery, type RunStatus, type RunSummary } from "../types";
import { unended } from "./run-progress";

export interface RunsView {
  flow: string;
  status: string;
  trigger: string;
  /** What the id search box holds, as typed. */
  id: string;
  /** "", "1h", "24h", "7d" or "custom". */
  window: string;
  /** The window's start and end, ISO instants ("" when open). */
  after: string;
  before: string;
  /** The cursors of the pages before the one shown (none: the first page); in the address as `page` and `cursors`. */
  cursors: string[];
}

/** The time window choices: the last so many milliseconds, or a custom range. */
export const WINDOWS: Array<{ value: string; label: string; ms?: number }> = [
  { value: "", label: "Any time" },
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { value: "custom", label: "Between…" },
];

const FIELDS = ["flow", "status", "trigger", "id", "window", "after", "before"] as const;

export function viewFromSearch(search: string): RunsView {
  const params = new URLSearchParams(search);
  const read = (field: (typeof FIELDS)[number]) => params.get(field)?.trim() ?? "";
  const view: RunsView = {
    flow: read("flow"),
    status: read("status"),
    trigger: read("trigger"),
    id: read("id"),
    window: read("window"),
    after: read("after"),
    before: read("before"),
    // Base64url cursors never hold a ".": the address joins them with it. A tampered one is refused by the API (400).
    cursors: (params.get("cursors") ?? "")
      .split(".")
      .filter((cursor) => cursor !== "")
      .slice(0, MAX_PAGES),
  };
  if (!WINDOWS.some((w) => w.value === view.window)) view.window = "";
  return view;
}

/** How many pages back an address may name (each a cursor in it). */
const MAX_PAGES = 100;

/** The address's query for a view: only what is set, in a fixed order; the page number after a first page. */
export function searchOfView(view: RunsView): string {
  const params = new URLSearchParams();
  for (const field of FIELDS) if (view[field]) params.set(field, view[field]);
  if (view.cursors.length > 0) {
    params.set("page", String(view.cursors.length + 1));
    params.set("cursors", view.cursors.join("."));
  }
  const search = params.toString();
  return search ? `?${search}` : "";
}

/**
 * A view with the window chosen: a "last …" window is fixed to an instant when chosen, so that
 * polling, paging and a shared link keep one window.
 */
export function withWindow(view: RunsView, value: string, now: number): RunsView {
  const ms = WINDOWS.find((w) => w.value === value)?.ms;
  if (value === "custom") return { ...view, window: value, after: "", before: "" };
  return { ...view, window: value, after: ms ? new Date(now - ms).toISOString() : "", before: "" };
}

/** What the id box holds as the API's `id` filter: a run id or its beginning (run_ may be left out). */
export function runIdFilter(text: string): string | null {
  const typed = text.trim().toLowerCase();
  if (!typed) return null;
  const id = typed.startsWith("run_") ? typed : `run_${typed}`;
  return /^run_[0-9a-f]{1,24}$/.test(id) ? id : null;
}

/** The status filter's choices: queued runs wait at their flow's concurrency or throttle gate. */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "queued", "success", "failed", "cancelled"];
const isStatus = (text: string): text is RunStatus => (RUN_STATUSES as readonly string[]).includes(text);
const isTrigger = (text: string): text is (typeof RUN_TRIGGERS)[number] =>
  (RUN_TRIGGERS as readonly string[]).includes(text);

/** The API's query for a page of the view (GET /api/runs); a status or trigger it does not know is left out. */
export function listQuery(view: RunsView): RunsQuery {
  const query: RunsQuery = {};
  if (view.flow) query.flow_id = view.flow;
  if (isStatus(view.status)) query.status = view.status;
  if (isTrigger(view.trigger)) query.trigger = view.trigger;
  // What cannot be a run id is sent as typed: the API refuses it (400) and the page says why, rather
  // than listing every run as if there were no filter.
  const typed = view.id.trim();
  if (typed) query.id = runIdFilter(typed) ?? typed;
  if (view.window && view.after) query.started_after = view.after;
  if (view.window === "custom" && view.before) query.started_before = view.before;
  return query;
}

/** Whether anything narrows the list (the empty list then says to widen it). */
export const isFiltered = (view: RunsView) => Object.keys(listQuery(view)).length > 0;

/** A datetime-local value (the browser's time zone) as an ISO instant, or "". */
export function localToInstant(value: string): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

/** An ISO instant as a datetime-local value in the browser's time zone, or "". */
export function instantToLocal(instant: string): string {
  const date = new Date(instant);
  if (!instant || Number.isNaN(date.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** Of the selected runs, those a retry takes (failed or cancelled) and those a cancel takes (running or queued). */
export function bulkTargets(runs: ReadonlyArray<Pick<RunSummary, "id" | "status">>) {
  return {
    retry: runs.filter((run) => run.status === "failed" || run.status === "cancelled").map((run) => run.id),
    cancel: runs.filter((run) => unended(run.status)).map((run) => run.id),
  };
}

/** What a run's line says of the run it reruns: "Retry of" or "Rerun of" (null: it reruns none). */
export function rerunOfLabel(run: Pick<RunSummary, "trigger" | "rerun_of">): string | null {
  if (!run.rerun_of) return null;
  return run.trigger === "retry" ? "Retry of" : "Rerun of";
}

/** What a run's line says of the runs that rerun or retry it: "Rerun twice" (null: none). */
export function rerunsLabel(count: number): string | null {
  if (count <= 0) return null;
  return `Rerun ${count === 1 ? "once" : count === 2 ? "twice" : `${count} times`}`;
}
