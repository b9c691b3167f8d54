// The flow editor: the bar, the palette, the canvas and the side panel over one draft (useFlowDraft).
import { useQuery } from "@tanstack/react-query";
import { ReactFlowProvider } from "@xyflow/react";
import { useMemo } from "react";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import { useLeaveGuard } from "../leave-guard";
import { useNarrowScreen } from "../narrow-screen";
import type { CatalogEntry, FlowDefinition, FlowDetail, FlowVersion } from "../types";
import { FlowCanvas } from "./canvas";
import { FlowNodeList } from "./flow-node-list";
import { Palette } from "./palette";
import { SidePanel } from "./side-panel";
import { EditorBar, EditorMessages } from "./toolbar";
import { useFlowDraft } from "./use-flow-draft";

function Editor({ flow, head, catalog }: { flow: FlowDetail; head: FlowDefinition; catalog: CatalogEntry[] }) {
  const byType = useMemo(() => new Map(catalog.map((entry) => [entry.type, entry])), [catalog]);
  // What credential fields offer (names and types only: the API never shows a value).
  const credentials = useQuery({
    queryKey: ["credentials", "picker"],
    queryFn: () => read(client.GET("/api/credentials", { params: { query: { limit: 200 } } })),
  });
  const draft = useFlowDraft(flow, head, byType);
  useLeaveGuard(draft.graph.dirty ? `“${flow.name}” has unsaved changes. Leave without saving them?` : null);
  // A phone gets a read-only canvas: nodes are picked from the list under it and edited there.
  const narrow = useNarrowScreen();
  return (
    <div className="editor">
      <EditorBar flow={flow} draft={draft} narrow={narrow} />
      <EditorMessages draft={draft} narrow={narrow} />
      <div className="editor-body">
        {!narrow && <Palette catalog={catalog} onAdd={(type) => draft.edits.addNode(type)} />}
        <FlowCanvas draft={draft} catalog={catalog} narrow={narrow} />
        {narrow && (
          <FlowNodeList nodes={draft.problems.shownNodes} edges={draft.graph.edges} onSelect={draft.edits.selectNode} />
        )}
        <SidePanel flow={flow} draft={draft} byType={byType} narrow={narrow} credentials={credentials.data?.items} />
      </div>
    </div>
  );
}

/**
 * The definition the editor opens: the draft's when the flow has one, else the published one. Read
 * once per visit (never kept after leaving the page): later saves change the canvas, not this.
 */
async function headOf(id: string): Promise<FlowDefinition> {
  const flow = (await read(client.GET("/api/flows/{id}", { params: { path: { id } } }))) as FlowDetail;
  if (flow.draft_version === null) return flow.definition;
  const path = { id, version: flow.draft_version };
  const draft = (await read(client.GET("/api/flows/{id}/versions/{version}", { params: { path } }))) as FlowVersion;
  return draft.definition;
}

export default function FlowEditorPage({ id }: { id: string }) {
  const flow = useQuery({
    queryKey: ["flow", id],
    queryFn: () => read(client.GET("/api/flows/{id}", { params: { path: { id } } })) as Promise<FlowDetail>,
    staleTime: Infinity,
  });
  const head = useQuery({ queryKey: ["flow", id, "head"], queryFn: () => headOf(id), staleTime: Infinity, gcTime: 0 });
  const catalog = useQuery({
    queryKey: ["nodes"],
    queryFn: () => read(client.GET("/api/nodes")),
    staleTime: 300_000,
  });
  const error = flow.error ?? head.error ?? catalog.error;
  if (error) return <ErrorMessage error={describeError(error)} />;
  if (!flow.data || !head.data || !catalog.data) return <p className="loading">Loading the flow…</p>;
  return (
    <ReactFlowProvider>
      <Editor key={flow.data.id} flow={flow.data} head={head.data} catalog={catalog.data.items} />
    </ReactFlowProvider>
  );
}
