// The flow's tags in the editor's bar: a button showing them, which opens the flows list's tags
// dialog. Its save sends only the published version and the tags (no new version, the canvas and
// the draft untouched); the editor keeps the flow it answers, or reads the flow again when another
// version was published meanwhile.
import { useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { client, read } from "../api";
import type { FlowDetail } from "../types";
import { FlowTagsDialog } from "./flow-tags-dialog";
import type { FlowDraft } from "./use-flow-draft";

/** Tags of the workspace's flows (the first 200), suggested while the dialog is open. */
function useTagsInUse(enabled: boolean) {
  const flows = useQuery({
    queryKey: ["flows", "tags-in-use"],
    queryFn: () => read(client.GET("/api/flows", { params: { query: { limit: 200 } } })),
    enabled,
  });
  return [...new Set((flows.data?.items ?? []).flatMap((flow) => flow.tags))].sort();
}

export function EditorTags({ flow, draft }: { flow: FlowDetail; draft: FlowDraft }) {
  const [open, setOpen] = useState(false);
  const suggestions = useTagsInUse(open);
  const { versions, graph } = draft;
  const reread = () =>
    void read(client.GET("/api/flows/{id}", { params: { path: { id: flow.id } } })).then((fresh) =>
      versions.remember(fresh as FlowDetail),
    );
  return (
    <>
      <button
        type="button"
        className="editor-tags"
        onClick={() => setOpen(true)}
        title="Edit the flow's tags: saved at once, without a new version"
      >
        Tags
        {/* A space before each tag: the button reads "Tags billing monthly". */}
        {flow.tags.map((tag) => (
          <Fragment key={tag}>
            {" "}
            <span className="badge tag">{tag}</span>
          </Fragment>
        ))}
      </button>
      {open && (
        <FlowTagsDialog
          flow={{ id: flow.id, name: flow.name, version: versions.published, tags: flow.tags }}
          suggestions={suggestions}
          onSaved={versions.remember}
          onStale={reread}
          onDone={(notice) => {
            setOpen(false);
            graph.setNotice(notice);
          }}
          onCancel={() => setOpen(false)}
        />
      )}
    </>
  );
}
