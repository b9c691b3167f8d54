// The flow editor: palette from the node catalog, React Flow canvas, config form, save, run.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  addEdge,
  Background,
  Controls,
  Handle,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesInitialized,
  useNodesState,
  useReactFlow,
  type Connection,
  type FinalConnectionState,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useContext, useEffect, useMemo, useRef, useState, type DragEvent } from "react";
import { Controller, useForm } from "react-hook-form";
import { Link, useLocation } from "wouter";
import { ApiError, apiUrl, client, describeError, read } from "../api";
import { ConfigForm } from "../components/config-form";
import { connectionProblem } from "../components/connection-rules";
import { ScheduleInfo, Versions } from "../components/flow-extras";
import { FlowControlFields } from "../components/flow-control";
import { FlowNodeList } from "../components/flow-node-list";
import { NodeTest } from "../components/node-test";
import { TestRunResults, TestRunStates, useTestRun } from "../components/test-run";
import { defaultConfig } from "../components/config-fields";
import { LazyCodeEditor } from "../components/lazy-code-editor";
import { branchesOnError, ERROR_BRANCH, settingsForm, settingsOf, withSettings } from "../components/node-settings";
import { tidyPositions } from "../components/auto-layout";
import { EditHistory } from "../components/edit-history";
import {
  newNodeId,
  toDefinition,
  toEdge,
  toEditor,
  type EditorEdge,
  type EditorNode,
  type FlowSettings,
} from "../components/flow-graph";
import { ErrorMessage, StatusBadge } from "../components/status-badge";
import { useFlowProblems } from "../components/use-flow-problems";
import { InputPanel } from "../components/input-panel";
import { HookTestListen } from "../components/hook-test-listen";
import { NodeIcon } from "../components/node-icons";
import { ReadableZoom } from "../components/readable-zoom";
import { useExpressionHelp } from "../components/use-expression-help";
import { useFieldDrafts } from "../components/use-field-drafts";
import { parseFieldInput } from "../components/config-fields";
import { useLeaveGuard } from "../leave-guard";
import { useNarrowScreen } from "../narrow-screen";
import type { CatalogEntry, FlowDefinition, FlowDetail, FlowStatus } from "../types";

const DRAG_TYPE = "application/x-svc-node";
const CATEGORY_ORDER = ["trigger", "logic", "data", "integration", "ai", "utility"];
const BRANCHING = new Set(["condition", "branch", "wait"]);
/** A new edge's label: the first of the node's labels its edges do not use yet (the wait node's declaration). */
const WAIT_LABELS = { approval: ["approved", "rejected", "timeout"], resume: ["resumed", "timeout"] };

function SvcNode({ id, data, selected, isConnectable }: NodeProps<EditorNode>) {
  // Where the node stands in the editor's last test run.
  const tested = useContext(TestRunStates).get(id);
  return (
    <div
      className={`flow-node cat-${data.category}${selected ? " selected" : ""}${data.problems.length ? " has-problems" : ""}`}
      data-node-type={data.type}
    >
      {data.category !== "trigger" && <Handle type="target" position={Position.Left} isConnectable={isConnectable} />}
      <div className="flow-node-head">
        <NodeIcon type={data.type} category={data.category} />
        <div className="flow-node-title">
          <div className="flow-node-name">{data.name || data.catalogName}</div>
          <div className="flow-node-type">{data.type}</div>
        </div>
      </div>
      {tested && (
        <div className={`flow-node-tested badge status-${tested}`} data-test-state={tested}>
          test: {tested}
        </div>
      )}
      {data.problems.map((problem) => (
        <div key={problem} className="flow-node-problem" role="alert">
          {problem}
        </div>
      ))}
      <Handle type="source" position={Position.Right} isConnectable={isConnectable} />
      {branchesOnError(data.extra) && (
        <Handle
          type="source"
          id={ERROR_BRANCH}
          position={Position.Bottom}
          className="error-handle"
          title="On error: edges from here run only when the node fails"
          isConnectable={isConnectable}
        />
      )}
    </div>
  );
}

const nodeTypes = { svc: SvcNode };

/** Saves `value` as a JSON file through the browser's download. */
function downloadJson(fileName: string, value: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

function Palette({ catalog, onAdd }: { catalog: CatalogEntry[]; onAdd: (type: string) => void }) {
  const [filter, setFilter] = useState("");
  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const matching = catalog.filter(
      (entry) => !needle || `${entry.name} ${entry.type} ${entry.description}`.toLowerCase().includes(needle),
    );
    const categories = [...new Set(matching.map((e) => e.category))].sort(
      (a, b) => ((CATEGORY_ORDER.indexOf(a) + 99) % 99) - ((CATEGORY_ORDER.indexOf(b) + 99) % 99),
    );
    return categories.map((category) => ({ category, entries: matching.filter((e) => e.category === category) }));
  }, [catalog, filter]);
  return (
    <aside className="palette" aria-label="Node palette">
      <input
        aria-label="Filter nodes"
        placeholder="Filter nodes"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <p className="hint">Drag a node onto the canvas (or double-click it).</p>
      {groups.map(({ category, entries }) => (
        <div key={category} className="palette-group">
          <h3>{category}</h3>
          {entries.map((entry) => (
            <div
              key={entry.type}
              className="palette-item"
              data-palette-type={entry.type}
              draggable
              title={entry.description}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_TYPE, entry.type);
                e.dataTransfer.effectAllowed = "move";
              }}
              onDoubleClick={() => onAdd(entry.type)}
            >
              <strong>
                <NodeIcon type={entry.type} category={entry.category} />
                {entry.name}
              </strong>
              {!entry.official && <span className="badge custom">custom</span>}
              <small>{entry.description}</small>
            </div>
          ))}
        </div>
      ))}
    </aside>
  );
}

/** Why a run's input cannot be sent, or true when it is a JSON object. */
function runInputProblem(text: string): true | string {
  try {
    const value = JSON.parse(text) as unknown;
    return (value !== null && typeof value === "object" && !Array.isArray(value)) || "The input must be a JSON object";
  } catch {
    return "The input is not valid JSON";
  }
}

function Editor({ flow, catalog }: { flow: FlowDetail; catalog: CatalogEntry[] }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const byType = useMemo(() => new Map(catalog.map((entry) => [entry.type, entry])), [catalog]);
  // What credential fields offer (names and types only: the API never shows a value).
  const credentials = useQuery({
    queryKey: ["credentials", "picker"],
    queryFn: () => read(client.GET("/api/credentials", { params: { query: { limit: 200 } } })),
  });
  const initial = useMemo(() => toEditor(flow.definition, byType), [flow.definition, byType]);
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<EditorEdge>(initial.edges);
  // The definition's own fields (its error flow, a builder's data): kept through every save.
  const [settings, setSettings] = useState<FlowSettings>(initial.settings);
  // The canvas as a flow definition: what save and export send, and what a version is compared with.
  const definition = useMemo(() => toDefinition(nodes, edges, settings), [nodes, edges, settings]);
  const [version, setVersion] = useState(flow.version);
  const [status, setStatus] = useState(flow.status);
  const [dirty, setDirty] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Why the last edge drawn was refused (a loop, a second edge between two nodes). */
  const [refusedEdge, setRefusedEdge] = useState<string | null>(null);
  const problems = useFlowProblems(nodes, edges, byType);
  const drafts = useFieldDrafts(nodes.map((node) => node.id));
  const help = useExpressionHelp(flow.id, edges);
  // A reference put in from the input panel: the form starts again from the node's config.
  const [formVersion, setFormVersion] = useState(0);
  useLeaveGuard(dirty ? `“${flow.name}” has unsaved changes. Leave without saving them?` : null);
  const runForm = useForm({ mode: "onChange", defaultValues: { input: "{}" } });
  const { screenToFlowPosition, fitView } = useReactFlow();
  const initialized = useNodesInitialized();
  // A phone gets a read-only canvas: nodes are picked from the list under it and edited there.
  const narrow = useNarrowScreen();

  // For the browser test's measurement: every node of the flow is on the canvas and measured.
  useEffect(() => {
    if (initialized) performance.mark(`flow-rendered-${nodes.length}`);
  }, [initialized, nodes.length]);

  const selectedNode = nodes.find((n) => n.selected);
  const selectedSample = selectedNode ? help.sampleOf(selectedNode.id) : null;
  const selectedEdge = edges.find((e) => e.selected);

  const touch = () => {
    setDirty(true);
    setNotice(null);
    setRefusedEdge(null);
  };

  // Undo and redo: the definition once each change settles (a drag records where it ended).
  const history = useRef<EditHistory | null>(null);
  history.current ??= new EditHistory(JSON.stringify(definition));
  const [, historyChanged] = useState(0);
  const recordNow = useCallback(() => {
    history.current!.record(JSON.stringify(definition));
    historyChanged((n) => n + 1);
  }, [definition]);
  useEffect(() => {
    const timer = setTimeout(recordNow, 300);
    return () => clearTimeout(timer);
  }, [recordNow]);
  const stepHistory = (direction: "undo" | "redo") => {
    recordNow();
    const snapshot = direction === "undo" ? history.current!.undo() : history.current!.redo();
    if (snapshot === undefined) return;
    const restored = toEditor(JSON.parse(snapshot) as FlowDefinition, byType);
    setNodes(restored.nodes);
    setEdges(restored.edges);
    setSettings(restored.settings);
    historyChanged((n) => n + 1);
    touch();
  };
  /** Lays the nodes out in layers along the edges (an undo puts them back). */
  const tidyUp = () => {
    const positions = tidyPositions(
      nodes.map((node) => ({ id: node.id, width: node.measured?.width, height: node.measured?.height })),
      edges.map((edge) => ({ source: edge.source, target: edge.target, branch: edge.data?.branch })),
    );
    setNodes((current) => current.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })));
    touch();
    window.requestAnimationFrame(() => void fitView({ maxZoom: 1 }));
  };
  const stepHistoryRef = useRef(stepHistory);
  stepHistoryRef.current = stepHistory;
  useEffect(() => {
    // Ctrl+Z (⌘Z) undoes, Ctrl+Shift+Z or Ctrl+Y redoes; text fields keep their own undo.
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      const key = event.key.toLowerCase();
      if (key === "z" || key === "y") {
        event.preventDefault();
        stepHistoryRef.current(key === "y" || event.shiftKey ? "redo" : "undo");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const labelOf = (id: string) => nodes.find((n) => n.id === id)?.data.name || id;

  const addNode = useCallback(
    (type: string, position?: { x: number; y: number }) => {
      const entry = byType.get(type);
      if (!entry) return;
      setNodes((current) => {
        const id = newNodeId(type, new Set(current.map((n) => n.id)));
        const node: EditorNode = {
          id,
          type: "svc",
          position: position ?? { x: 80 + current.length * 30, y: 80 + current.length * 30 },
          selected: true,
          data: {
            type,
            name: "",
            config: defaultConfig(entry.config_schema),
            category: entry.category,
            catalogName: entry.name,
            problems: [],
            extra: {},
          },
        };
        return [...current.map((n) => ({ ...n, selected: false })), node];
      });
      touch();
    },
    [byType, setNodes],
  );

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const type = event.dataTransfer.getData(DRAG_TYPE);
    if (type) addNode(type, screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };

  // An edge that would make a loop or repeat one is refused as it is drawn: the handle does not take
  // it, and the reason shows when it is let go.
  const isValidConnection = (connection: Connection | EditorEdge) =>
    connectionProblem(edges, connection.source, connection.target) === null;
  const onConnectEnd = (_event: unknown, state: FinalConnectionState) => {
    if (state.isValid !== false || !state.fromNode || !state.toNode) return;
    // Drawn from a node's input handle, the edge runs the other way.
    const [source, target] =
      state.fromHandle?.type === "target" ? [state.toNode.id, state.fromNode.id] : [state.fromNode.id, state.toNode.id];
    setRefusedEdge(connectionProblem(edges, source, target, labelOf));
  };

  const onConnect = (connection: Connection) => {
    if (connectionProblem(edges, connection.source, connection.target) !== null) return;
    const source = nodes.find((n) => n.id === connection.source);
    let branch: string | undefined;
    if (connection.sourceHandle === ERROR_BRANCH) branch = ERROR_BRANCH;
    else if (source && BRANCHING.has(source.data.type)) {
      const used = new Set(edges.filter((e) => e.source === source.id).map((e) => e.data?.branch));
      const waitLabels = WAIT_LABELS[source.data.config.mode === "resume" ? "resume" : "approval"];
      branch =
        source.data.type === "condition"
          ? used.has("true")
            ? "false"
            : "true"
          : source.data.type === "wait"
            ? (waitLabels.find((label) => !used.has(label)) ?? waitLabels[0])
            : "default";
    }
    setEdges((current) =>
      addEdge(
        { ...toEdge(connection.source, connection.target, branch), id: `e-${connection.source}-${connection.target}` },
        current,
      ),
    );
    touch();
  };

  const selectNode = (id: string) => {
    setNodes((current) => current.map((n) => ({ ...n, selected: n.id === id })));
    setEdges((current) => current.map((e) => (e.selected ? { ...e, selected: false } : e)));
  };

  const updateNode = (id: string, patch: Partial<EditorNode["data"]>) => {
    setNodes((current) => current.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch } } : n)));
    touch();
  };

  const save = useMutation({
    mutationFn: (change: {
      status?: FlowStatus;
      /** A stored version's definition to save as the new one (restore), instead of the canvas. */
      restore?: { version: number; definition: FlowDefinition };
      sent: { nodes: EditorNode[]; edges: EditorEdge[]; settings: FlowSettings };
    }) =>
      read(
        client.PUT("/api/flows/{id}", {
          params: { path: { id: flow.id } },
          body: {
            version,
            definition:
              change.restore?.definition ?? toDefinition(change.sent.nodes, change.sent.edges, change.sent.settings),
            ...(change.status ? { status: change.status } : {}),
          },
        }),
      ) as Promise<FlowDetail>,
    onSuccess: (saved, change) => {
      const before = version;
      setVersion(saved.version);
      setStatus(saved.status);
      setDirty(false);
      problems.clear();
      drafts.saved();
      if (change.restore) {
        const restored = toEditor(saved.definition, byType);
        setNodes(restored.nodes);
        setEdges(restored.edges);
        setSettings(restored.settings);
        setNotice(
          saved.version === before
            ? `Version ${change.restore.version} is what is saved already: nothing changed.`
            : `Restored version ${change.restore.version} as version ${saved.version}.`,
        );
      } else {
        setNotice(`Saved: version ${saved.version}.`);
      }
      queryClient.setQueryData(["flow", flow.id], saved);
      void queryClient.invalidateQueries({ queryKey: ["flows"] });
      void queryClient.invalidateQueries({ queryKey: ["flow", flow.id, "versions"] });
    },
    onError: (error, change) => {
      if (!change.restore) problems.report(error, change.sent);
    },
  });
  /** Saves the canvas (and a status change), once the editor's own checks find nothing to fix. */
  const saveCanvas = (status?: FlowStatus) => {
    setNotice(null);
    // Both checks run, so that everything to fix shows at once.
    const fieldsRead = drafts.readyToSave();
    if (problems.readyToSave() && fieldsRead) save.mutate({ status, sent: { nodes, edges, settings } });
  };
  const saveRef = useRef(saveCanvas);
  saveRef.current = saveCanvas;
  const savingRef = useRef(save.isPending);
  savingRef.current = save.isPending;
  useEffect(() => {
    // Ctrl+S (⌘S) saves, from anywhere in the editor (a field being typed in too), not the browser's page.
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== "s")
        return;
      event.preventDefault();
      if (!savingRef.current) saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  /** Saves a stored version's definition as a new version; false when the person keeps their changes. */
  const restoreVersion = (restore: { version: number; definition: FlowDefinition }) => {
    const question = `Discard your unsaved changes and restore version ${restore.version}?`;
    if (dirty && !window.confirm(question)) return false;
    save.mutate({ restore, sent: { nodes, edges, settings } });
    return true;
  };

  const run = useMutation({
    mutationFn: (input: string) =>
      read(
        client.POST("/api/workflows/{id}/run", {
          params: { path: { id: flow.id } },
          body: { input: JSON.parse(input) as Record<string, unknown> },
        }),
      ),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
  // A test run of the canvas as it is (unsaved too), on an inactive flow too: the editor's checks first, as a save's.
  const test = useTestRun(flow.id);
  // A captured test event becomes the input Test flow runs the draft on.
  const setRunInput = runForm.setValue;
  const onTestEvent = useCallback(
    (captured: Record<string, unknown>) =>
      setRunInput("input", JSON.stringify(captured, null, 2), { shouldValidate: true, shouldDirty: true }),
    [setRunInput],
  );
  // `until`: "Run to here", the node and its ancestors only.
  const testCanvas = (input: string, until?: string) => {
    const fieldsRead = drafts.readyToSave();
    if (!problems.readyToSave() || !fieldsRead) return;
    const sent = { nodes, edges };
    test.start.mutate(
      { definition, input: JSON.parse(input) as Record<string, unknown>, ...(until ? { until } : {}) },
      { onError: (error) => problems.report(error, sent) },
    );
  };

  // The same object while the messages are the same: the form takes a new one as its errors.
  const fieldProblemsText = JSON.stringify((selectedNode && problems.shown.fields.get(selectedNode.id)) ?? null);
  const fieldProblems = useMemo(
    () => (JSON.parse(fieldProblemsText) as Record<string, string> | null) ?? undefined,
    [fieldProblemsText],
  );
  // The selected node's problems as a whole (its fields' show under each field).
  const nodeProblems = selectedNode ? (problems.shown.nodes.get(selectedNode.id) ?? []).filter((p) => !p.key) : [];
  // The API's headline ("The flow definition is invalid") once, its details being on the canvas;
  // gone when none of them stands any more.
  const saveError =
    save.error instanceof ApiError && save.error.details.length > 0
      ? problems.reportedCount > 0
        ? save.error.message
        : null
      : save.error
        ? describeError(save.error)
        : null;
  const hookUrl = flow.hook ? apiUrl(flow.hook.path) : null;
  const draftProblems = drafts.problems(labelOf);

  return (
    <div className="editor">
      <div className="editor-bar">
        <Link href="/flows">← Flows</Link>
        <h1>{flow.name}</h1>
        <StatusBadge status={status} />
        <span className="muted">v{version}</span>
        {dirty && <span className="badge unsaved">unsaved changes</span>}
        <Link href={`/usage?flow=${flow.id}`}>Cost</Link>
        <span className="spacer" />
        <button
          type="button"
          onClick={() =>
            downloadJson(`${flow.name.replace(/[^\w.-]+/g, "-")}.json`, {
              name: flow.name,
              description: flow.description,
              definition,
            })
          }
        >
          Export JSON
        </button>
        {!narrow && (
          <>
            <button
              type="button"
              onClick={tidyUp}
              disabled={nodes.length < 2}
              title="Lay the nodes out along the edges"
            >
              Tidy up
            </button>
            <button
              type="button"
              onClick={() => stepHistory("undo")}
              disabled={!history.current.canUndo && !dirty}
              title="Undo (Ctrl+Z)"
            >
              Undo
            </button>
            <button
              type="button"
              onClick={() => stepHistory("redo")}
              disabled={!history.current.canRedo}
              title="Redo (Ctrl+Shift+Z)"
            >
              Redo
            </button>
          </>
        )}
        <button
          type="button"
          className="primary"
          onClick={() => saveCanvas()}
          disabled={save.isPending}
          title="Save (Ctrl+S)"
        >
          Save
        </button>
        <button
          type="button"
          onClick={() => saveCanvas(status === "active" ? "inactive" : "active")}
          disabled={save.isPending}
        >
          {status === "active" ? "Deactivate" : "Activate"}
        </button>
      </div>
      {notice && <p className="notice">{notice}</p>}
      <ErrorMessage error={saveError} />
      {draftProblems.length > 0 && (
        <div className="error-message" role="alert">
          Not saved: {draftProblems.length === 1 ? "a field does" : "fields do"} not read as {""}
          {draftProblems.length === 1 ? "its type" : "their types"}:
          <ul>
            {draftProblems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {problems.ownCount > 0 && (
        <p className="error-message" role="alert">
          Not saved: fix what is marked first ({problems.ownCount} problem{problems.ownCount === 1 ? "" : "s"}).
        </p>
      )}
      {problems.shown.other.length > 0 && (
        <ul className="problems" role="alert">
          {problems.shown.other.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {refusedEdge && (
        <p className="edge-refused" role="alert">
          {refusedEdge}
        </p>
      )}
      {narrow && (
        <p className="hint editor-narrow-hint">
          Adding and connecting nodes needs a wider screen; here you can look at the flow and change a node&apos;s
          settings.
        </p>
      )}
      <div className="editor-body">
        {!narrow && <Palette catalog={catalog} onAdd={(type) => addNode(type)} />}
        <div
          className="canvas"
          data-testid="canvas"
          onDrop={onDrop}
          onDragOver={(e) => {
            e.preventDefault();
            e.dataTransfer.dropEffect = "move";
          }}
        >
          <TestRunStates.Provider value={test.states}>
            <ReactFlow
              nodes={problems.shownNodes}
              edges={problems.shownEdges}
              nodeTypes={nodeTypes}
              onNodesChange={(changes) => {
                onNodesChange(changes);
                if (changes.some((c) => c.type === "position" || c.type === "remove")) touch();
              }}
              onEdgesChange={(changes) => {
                onEdgesChange(changes);
                if (changes.some((c) => c.type === "remove")) touch();
              }}
              onConnect={onConnect}
              isValidConnection={isValidConnection}
              onConnectEnd={onConnectEnd}
              nodesDraggable={!narrow}
              nodesConnectable={!narrow}
              deleteKeyCode={narrow ? null : ["Backspace", "Delete"]}
              minZoom={0.1}
            >
              <ReadableZoom />
              <Background />
              <Controls />
            </ReactFlow>
          </TestRunStates.Provider>
        </div>
        {narrow && <FlowNodeList nodes={problems.shownNodes} edges={edges} onSelect={selectNode} />}
        <aside className="inspector" aria-label="Inspector">
          {selectedNode ? (
            <div key={selectedNode.id}>
              <h2>{selectedNode.data.catalogName}</h2>
              <p className="muted">
                id <code>{selectedNode.id}</code> · {selectedNode.data.type}
              </p>
              <p className="muted small">{byType.get(selectedNode.data.type)?.description}</p>
              {nodeProblems.length > 0 && (
                <ul className="problems node-problems" role="alert">
                  {nodeProblems.map((p) => (
                    <li key={p.message}>{p.message}</li>
                  ))}
                </ul>
              )}
              <label className="field">
                Name
                <input
                  name="node-name"
                  value={selectedNode.data.name}
                  placeholder={selectedNode.data.catalogName}
                  onChange={(e) => updateNode(selectedNode.id, { name: e.target.value })}
                />
              </label>
              <InputPanel
                sample={selectedSample}
                upstream={help.upstreamOf(selectedNode.id)}
                labelOf={labelOf}
                onInsert={(path) => {
                  const schema = byType.get(selectedNode.data.type)?.config_schema;
                  const { id, data } = selectedNode;
                  const inserted = help.withReference(id, schema, data.config, drafts.of(id, "config"), path);
                  if (!inserted) return;
                  const { field, text } = inserted;
                  // Read as a save reads it: the config takes it, or the field keeps it with its error.
                  const parsed = parseFieldInput(field, text);
                  if (parsed.ok) {
                    const config = { ...data.config, [field.key]: parsed.value };
                    if (parsed.value === undefined) delete config[field.key];
                    updateNode(id, { config });
                  }
                  drafts.set(id, "config", field, parsed.ok ? null : { text, error: parsed.error });
                  setFormVersion((n) => n + 1);
                }}
              />
              <ConfigForm
                key={formVersion}
                schema={byType.get(selectedNode.data.type)?.config_schema}
                config={selectedNode.data.config}
                problems={fieldProblems}
                onChange={(config) => updateNode(selectedNode.id, { config })}
                drafts={drafts.of(selectedNode.id, "config")}
                onDraft={(field, draft) => drafts.set(selectedNode.id, "config", field, draft)}
                credentials={credentials.data?.items}
                templates={help.templates(selectedNode.id, selectedSample)}
              />
              <details className="node-settings" open={Object.keys(settingsOf(selectedNode.data.extra)).length > 0}>
                <summary>On error</summary>
                <p className="hint">
                  Retries and time per attempt (empty: the defaults shown). On error: stop fails the run; continue
                  passes {"{ error: { message, code } }"} on; branch runs only the edges from the node&apos;s error
                  handle (below it).
                </p>
                <ConfigForm
                  idPrefix="setting"
                  schema={settingsForm(byType.get(selectedNode.data.type)?.settings_schema)}
                  config={settingsOf(selectedNode.data.extra)}
                  drafts={drafts.of(selectedNode.id, "settings")}
                  onDraft={(field, draft) => drafts.set(selectedNode.id, "settings", field, draft)}
                  onChange={(settings) =>
                    updateNode(selectedNode.id, { extra: withSettings(selectedNode.data.extra, settings) })
                  }
                />
              </details>
              <NodeTest
                key={selectedNode.id}
                type={selectedNode.data.type}
                nodeId={selectedNode.id}
                flowId={flow.id}
                config={selectedNode.data.config}
                onOutput={(output) => help.onTested(selectedNode.id, output)}
                upstreamInput={selectedSample?.scope.input}
              />
              <button
                type="button"
                disabled={test.start.isPending || runInputProblem(runForm.getValues("input")) !== true}
                title="Test the canvas up to this node (it and its ancestors), on the run input"
                onClick={() => testCanvas(runForm.getValues("input"), selectedNode.id)}
              >
                Run to here
              </button>
              <ErrorMessage error={test.start.error ? describeError(test.start.error) : null} />
              <TestRunResults test={test} />
              {!narrow && (
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    setNodes((current) => current.filter((n) => n.id !== selectedNode.id));
                    setEdges((current) =>
                      current.filter((e) => e.source !== selectedNode.id && e.target !== selectedNode.id),
                    );
                    touch();
                  }}
                >
                  Remove node
                </button>
              )}
            </div>
          ) : selectedEdge ? (
            <div>
              <h2>Edge</h2>
              <p className="muted">
                {selectedEdge.source} → {selectedEdge.target}
              </p>
              <label className="field">
                Branch label (condition: true / false; branch: a case or default; wait: approved / rejected, resumed,
                timeout; error: from the error handle of a node set to branch on error)
                <input
                  name="edge-branch"
                  value={selectedEdge.data?.branch ?? ""}
                  onChange={(e) => {
                    const branch = e.target.value || undefined;
                    setEdges((current) =>
                      current.map((edge) =>
                        edge.id === selectedEdge.id
                          ? { ...toEdge(edge.source, edge.target, branch), id: edge.id, selected: edge.selected }
                          : edge,
                      ),
                    );
                    touch();
                  }}
                />
              </label>
            </div>
          ) : (
            <div>
              <h2>Run</h2>
              {nodes.length === 0 && <p className="empty">Drag a trigger from the palette to start the flow.</p>}
              <p className="muted small">
                Select a node to edit its settings. Runs use the saved version; Test flow runs the canvas as it is,
                unsaved and on an inactive flow too, as a test run.
              </p>
              <form onSubmit={runForm.handleSubmit(({ input }) => run.mutate(input))}>
                <label className="field" htmlFor="run-input">
                  Input (JSON object)
                </label>
                <Controller
                  name="input"
                  control={runForm.control}
                  rules={{ validate: runInputProblem }}
                  render={({ field, fieldState }) => (
                    <>
                      <div className="code-field" data-field="run-input">
                        <LazyCodeEditor
                          id="run-input"
                          value={field.value}
                          label="Run input"
                          language="json"
                          onChange={field.onChange}
                          minHeight="5em"
                        />
                      </div>
                      {fieldState.error && <p className="field-error">{fieldState.error.message}</p>}
                    </>
                  )}
                />
                {/* Only active flows run (the API refuses the others), and a run uses the saved version. */}
                {status !== "active" ? (
                  <p className="hint">Activate the flow to run it: only active flows run.</p>
                ) : (
                  dirty && <p className="hint">Save first: a run uses the saved version ({version}).</p>
                )}
                <button
                  type="submit"
                  className="primary"
                  disabled={!runForm.formState.isValid || run.isPending || dirty || status !== "active"}
                >
                  Run
                </button>{" "}
                <button
                  type="button"
                  disabled={!runForm.formState.isValid || test.start.isPending}
                  onClick={runForm.handleSubmit(({ input }) => testCanvas(input))}
                >
                  Test flow
                </button>
              </form>
              {hookUrl && <HookTestListen flowId={flow.id} onCaptured={onTestEvent} />}
              <ErrorMessage error={run.error ? describeError(run.error) : null} />
              <ErrorMessage error={test.start.error ? describeError(test.start.error) : null} />
              <TestRunResults test={test} />
              <ErrorFlowPicker
                flowId={flow.id}
                value={settings.error_flow_id}
                onChange={(errorFlowId) => {
                  const { error_flow_id: _previous, ...rest } = settings;
                  setSettings(errorFlowId ? { ...rest, error_flow_id: errorFlowId } : rest);
                  touch();
                }}
              />
              <FlowControlFields
                settings={settings}
                onChange={(next) => {
                  setSettings(next);
                  touch();
                }}
              />
              <ScheduleInfo schedule={flow.schedule} />
              <Versions flowId={flow.id} current={definition} onRestore={restoreVersion} />
              {hookUrl && (
                <div className="hook">
                  <h3>Hook URL</h3>
                  <code>{hookUrl}</code>
                  <button type="button" onClick={() => void navigator.clipboard?.writeText(hookUrl)}>
                    Copy
                  </button>
                  {!flow.hook?.live && <p className="muted small">Answers only while the flow is active.</p>}
                </div>
              )}
            </div>
          )}
        </aside>
      </div>
    </div>
  );
}

/** The flow to run when a run of this one fails (the definition's error_flow_id), among the workspace's flows. */
function ErrorFlowPicker(props: {
  flowId: string;
  value: string | undefined;
  onChange: (id: string | undefined) => void;
}) {
  const flows = useQuery({
    queryKey: ["flows", "picker"],
    queryFn: () => read(client.GET("/api/flows", { params: { query: { limit: 200 } } })),
  });
  const others = (flows.data?.items ?? []).filter((item) => item.id !== props.flowId);
  const known = props.value === undefined || others.some((item) => item.id === props.value);
  return (
    <div className="error-flow">
      <label className="field" htmlFor="error-flow">
        When a run fails, run
      </label>
      <select
        id="error-flow"
        name="error-flow"
        value={props.value ?? ""}
        onChange={(e) => props.onChange(e.target.value || undefined)}
      >
        <option value="">no flow</option>
        {others.map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
        {!known && <option value={props.value}>{props.value} (not found)</option>}
      </select>
      <p className="muted small">
        It gets the failed run, its node and its error as input (<code>{"{{ input.failed_run.id }}"}</code>); saved with
        the flow.
      </p>
    </div>
  );
}

export default function FlowEditorPage({ id }: { id: string }) {
  const flow = useQuery({
    queryKey: ["flow", id],
    queryFn: () => read(client.GET("/api/flows/{id}", { params: { path: { id } } })) as Promise<FlowDetail>,
    staleTime: Infinity,
  });
  const catalog = useQuery({
    queryKey: ["nodes"],
    queryFn: () => read(client.GET("/api/nodes")),
    staleTime: 300_000,
  });
  const error = flow.error ?? catalog.error;
  if (error) return <ErrorMessage error={describeError(error)} />;
  if (!flow.data || !catalog.data) return <p className="loading">Loading the flow…</p>;
  return (
    <ReactFlowProvider>
      <Editor key={flow.data.id} flow={flow.data} catalog={catalog.data.items} />
    </ReactFlowProvider>
  );
}
