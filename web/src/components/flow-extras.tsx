// The editor's side information: the flow's schedule (Temporal's next fire times), its budget and
// its versions.
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import type { FlowDefinition, FlowVersion, FlowVersionItem, ScheduleView } from "../types";
import { useCursorPages } from "../ui/cursor-pages";
import { FlowBudget } from "./flow-budget";
import { ErrorMessage } from "../ui/status-badge";

// The line diff (and its library) loads when a version is first compared.
const VersionDiff = lazy(() => import("./version-diff"));

export function ScheduleInfo({ schedule }: { schedule: ScheduleView | null | undefined }) {
  if (!schedule) return null;
  return (
    <div className="schedule">
      <h3>Schedule</h3>
      <p>
        <code>{schedule.cron ?? `every ${schedule.interval}`}</code> ({schedule.timezone})
        {schedule.paused && <span className="badge"> paused</span>}
      </p>
      <p className="muted small">
        Temporal schedule <code>{schedule.id}</code>{" "}
        <button type="button" onClick={() => void navigator.clipboard?.writeText(schedule.id)}>
          Copy
        </button>
      </p>
      {schedule.error && <ErrorMessage error={schedule.error} />}
      {schedule.next_fire_times && schedule.next_fire_times.length > 0 ? (
        <ul className="small">
          {schedule.next_fire_times.map((time) => (
            <li key={time}>{formatTime(time)}</li>
          ))}
        </ul>
      ) : (
        <p className="muted small">No upcoming fire times (the flow is inactive or the schedule paused).</p>
      )}
    </div>
  );
}

/** A version as the picker names it: number, author, time and the start of its note. */
export function versionLabel(version: Pick<FlowVersionItem, "version" | "author" | "created_at" | "note">): string {
  const note = version.note && version.note.length > 60 ? `${version.note.slice(0, 59)}…` : version.note;
  return [`v${version.version}`, version.author ?? "unknown author", formatTime(version.created_at), note]
    .filter(Boolean)
    .join(" · ");
}

/** Who saved the compared version, when, and its whole note. */
function VersionFacts({ version }: { version: FlowVersion }) {
  return (
    <p className="small version-facts">
      Version {version.version} saved by <strong>{version.author ?? "an unknown author"}</strong>,{" "}
      {formatTime(version.created_at)}
      {version.note ? (
        <>
          : <q>{version.note}</q>
        </>
      ) : (
        " (no note)"
      )}
    </p>
  );
}

/**
 * The versions of a flow; one of them compared line by line with the definition on the canvas, and
 * restored from there (saved again as the newest version).
 */
export function Versions({
  flowId,
  current,
  onRestore,
}: {
  flowId: string;
  current: FlowDefinition;
  /** Saves `definition` as a new version; false when it did not go ahead. */
  onRestore: (restore: { version: number; definition: FlowDefinition }) => boolean;
}) {
  const [picked, setPicked] = useState<number | null>(null);
  const pages = useCursorPages({ resetOn: [flowId] });
  const versions = useQuery({
    queryKey: ["flow", flowId, "versions", "page", pages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/flows/{id}/versions", {
          params: { path: { id: flowId }, query: { limit: 20, cursor: pages.cursor } },
        }),
      ),
  });
  const version = useQuery({
    queryKey: ["flow", flowId, "versions", picked],
    queryFn: (): Promise<FlowVersion> =>
      read(client.GET("/api/flows/{id}/versions/{version}", { params: { path: { id: flowId, version: picked! } } })),
    enabled: picked !== null,
  });
  return (
    <>
      <FlowBudget flowId={flowId} />
      <div className="versions">
        <h3>Versions</h3>
        <ErrorMessage error={versions.error ? describeError(versions.error) : null} />
        <select
          aria-label="Compare with version"
          value={picked ?? ""}
          onChange={(e) => setPicked(e.target.value ? Number(e.target.value) : null)}
        >
          <option value="">Compare with a version…</option>
          {/* The version compared stays named while another page of versions is listed. */}
          {picked !== null && !versions.data?.items.some((v) => v.version === picked) && (
            <option value={picked}>v{picked}</option>
          )}
          {(versions.data?.items ?? []).map((v) => (
            <option key={v.version} value={v.version}>
              {versionLabel(v)}
            </option>
          ))}
        </select>
        {pages.pager(versions.data?.next_cursor)}
        {picked !== null && version.data && (
          <Suspense fallback={<p className="loading">Comparing…</p>}>
            <VersionFacts version={version.data} />
            <VersionDiff
              label={`v${picked}`}
              old={version.data.definition}
              current={current}
              onClose={() => setPicked(null)}
              onRestore={() => {
                if (onRestore({ version: picked, definition: version.data.definition })) setPicked(null);
              }}
            />
          </Suspense>
        )}
      </div>
    </>
  );
}
