// The editor's side information: the flow's schedule (Temporal's next fire times), its budget and
// its versions.
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import type { FlowDefinition, FlowVersion, FlowVersionItem, ScheduleView } from "../types";
import { useCursorPages } from "../ui/cursor-pages";
import { versionMark, type PublishState } from "../flows/model/publishing";
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

/** A version as the picker names it: number (published or draft), author, time and the start of its note. */
export function versionLabel(
  version: Pick<FlowVersionItem, "version" | "author" | "created_at" | "note">,
  mark = "",
): string {
  const note = version.note && version.note.length > 60 ? `${version.note.slice(0, 59)}…` : version.note;
  const number = mark ? `v${version.version} (${mark})` : `v${version.version}`;
  return [number, version.author ?? "unknown author", formatTime(version.created_at), note].filter(Boolean).join(" · ");
}

/** Who saved the compared version, when, and its whole note. */
function VersionFacts({ version, mark }: { version: FlowVersion; mark: string }) {
  return (
    <p className="small version-facts">
      Version {version.version}
      {mark === "published" ? " (published: production runs it)" : mark === "draft" ? " (the draft)" : ""} saved by{" "}
      <strong>{version.author ?? "an unknown author"}</strong>, {formatTime(version.created_at)}
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
 * The versions of a flow, the published one and the draft marked; one of them compared line by line
 * with the definition on the canvas, and from there restored (saved again as the draft) or
 * published (a rollback).
 */
export function Versions({
  flowId,
  current,
  publishState,
  onRestore,
  onPublish,
}: {
  flowId: string;
  current: FlowDefinition;
  publishState: PublishState;
  /** Saves `definition` as the draft; false when it did not go ahead. */
  onRestore: (restore: { version: number; definition: FlowDefinition }) => boolean;
  /** Publishes a saved version in place of the published one; false when it did not go ahead. */
  onPublish: (version: number) => boolean;
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
              {versionLabel(v, versionMark(v.version, publishState))}
            </option>
          ))}
        </select>
        {pages.pager(versions.data?.next_cursor)}
        {picked !== null && version.data && (
          <Suspense fallback={<p className="loading">Comparing…</p>}>
            <VersionFacts version={version.data} mark={versionMark(picked, publishState)} />
            <VersionDiff
              label={`v${picked}`}
              published={picked === publishState.published}
              old={version.data.definition}
              current={current}
              onClose={() => setPicked(null)}
              onRestore={() => {
                if (onRestore({ version: picked, definition: version.data.definition })) setPicked(null);
              }}
              onPublish={() => {
                if (onPublish(picked)) setPicked(null);
              }}
            />
          </Suspense>
        )}
      </div>
    </>
  );
}
