// The flows list's table: a row per flow with its tags, status, last run and, for editors, its actions.
import { Link } from "wouter";
import { StatusBadge } from "../ui/status-badge";
import { formatDuration, formatTime } from "../format";
import type { FlowListItem } from "../types";
import { FlowRowActions } from "./flow-row-actions";
import { draftBadgeTitle } from "./model/publishing";

/** A flow's name, linking to its editor, and its tags (a click filters by one). */
function FlowNameCell({ flow, onTag }: { flow: FlowListItem; onTag: (tag: string) => void }) {
  return (
    <td>
      <Link href={`/flows/${flow.id}`}>{flow.name}</Link>
      {flow.tags.length > 0 && (
        <div className="small tags">
          {flow.tags.map((tag) => (
            <button
              key={tag}
              type="button"
              className="badge tag"
              aria-label={`Show flows tagged ${tag}`}
              onClick={() => onTag(tag)}
            >
              {tag}
            </button>
          ))}
        </div>
      )}
    </td>
  );
}

/** The flows of a page, each with its tags (a click filters by one) and, for editors, its actions. */
export function FlowsTable(props: {
  /** The tags in use (of the flows loaded), suggested when editing a flow's tags. */
  tagsInUse: string[];
  items: FlowListItem[];
  canManage: boolean;
  onTag: (tag: string) => void;
  onDone: (notice: string) => void;
}) {
  return (
    <table className="list cards">
      <thead>
        <tr>
          <th>Name</th>
          <th>Status</th>
          <th>Version</th>
          <th>Last run</th>
          <th>Updated</th>
          {props.canManage && <th aria-label="Actions" />}
        </tr>
      </thead>
      <tbody>
        {props.items.map((flow) => {
          const run = flow.last_run;
          return (
            <tr key={flow.id} data-flow={flow.id}>
              <FlowNameCell flow={flow} onTag={props.onTag} />
              <td data-label="Status">
                <StatusBadge status={flow.status} />
              </td>
              <td data-label="Version">
                v{flow.version}
                {flow.draft_version !== null && (
                  <span className="badge draft" title={draftBadgeTitle(flow.draft_version)}>
                    draft
                  </span>
                )}
              </td>
              <td data-label="Last run">
                {run ? (
                  <Link href={`/runs/${run.id}`} data-last-run={run.id}>
                    <StatusBadge status={run.status} /> {formatTime(run.started_at)}
                    {run.duration_ms !== null && <span className="muted"> · {formatDuration(run.duration_ms)}</span>}
                  </Link>
                ) : (
                  <span className="muted">never run</span>
                )}
              </td>
              <td data-label="Updated">{formatTime(flow.updated_at)}</td>
              {props.canManage && (
                <td>
                  <FlowRowActions
                    key={`${flow.id}:${flow.version}:${flow.status}`}
                    flow={flow}
                    tagsInUse={props.tagsInUse}
                    onDone={props.onDone}
                  />
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
