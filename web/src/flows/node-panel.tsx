// The side panel for the selected node: its name, "Connect to", the input panel (a click puts a
// reference in a field), its config form, its on-error settings, its pinned data, "Test this
// node", "Run to here" and remove.
import { useMemo, useState } from "react";
import { describeError } from "../api";
import { parseFieldInput } from "../components/config-fields";
import { ConfigForm } from "../components/config-form";
import type { EditorNode } from "../components/flow-graph";
import { InputPanel } from "../components/input-panel";
import { settingsForm, settingsOf, withSettings } from "../components/node-settings";
import { NodeTest } from "../components/node-test";
import { ErrorMessage } from "../ui/status-badge";
import { TestRunResults } from "../components/test-run";
import type { PathSegment } from "../../../core/flows/template";
import type { CatalogEntry, Credential } from "../types";
import { ConnectTo } from "./connect-to";
import { PinOutput } from "./pin-output";
import { runInputProblem } from "./use-draft-run";
import type { FlowDraft } from "./use-flow-draft";

export interface NodePanelProps {
  node: EditorNode;
  draft: FlowDraft;
  entry: CatalogEntry | undefined;
  flowId: string;
  narrow: boolean;
  credentials: Credential[] | undefined;
}

/** The node's problems: its fields' (the same object while the messages are the same) and its own as a whole. */
function useNodeProblems(draft: FlowDraft, nodeId: string) {
  const { shown } = draft.problems;
  const fieldProblemsText = JSON.stringify(shown.fields.get(nodeId) ?? null);
  const fieldProblems = useMemo(
    () => (JSON.parse(fieldProblemsText) as Record<string, string> | null) ?? undefined,
    [fieldProblemsText],
  );
  const nodeProblems = (shown.nodes.get(nodeId) ?? []).filter((p) => !p.key);
  return { fieldProblems, nodeProblems };
}

/** Puts a reference picked in the input panel into the node's config, as a save would read it. */
function insertReference(draft: FlowDraft, node: EditorNode, entry: CatalogEntry | undefined, path: PathSegment[]) {
  const { help, drafts, edits } = draft;
  const { id, data } = node;
  const inserted = help.withReference(id, entry?.config_schema, data.config, drafts.of(id, "config"), path);
  if (!inserted) return false;
  const { field, text } = inserted;
  // Read as a save reads it: the config takes it, or the field keeps it with its error.
  const parsed = parseFieldInput(field, text);
  if (parsed.ok) {
    const config = { ...data.config, [field.key]: parsed.value };
    if (parsed.value === undefined) delete config[field.key];
    edits.updateNode(id, { config });
  }
  drafts.set(id, "config", field, parsed.ok ? null : { text, error: parsed.error });
  return true;
}

/** The node's on-error settings: retries, time per attempt, stop, continue or branch. */
function NodeSettings({ node, draft, entry }: Pick<NodePanelProps, "node" | "draft" | "entry">) {
  const { drafts, edits } = draft;
  return (
    <details className="node-settings" open={Object.keys(settingsOf(node.data.extra)).length > 0}>
      <summary>On error</summary>
      <p className="hint">
        Retries and time per attempt (empty: the defaults shown). On error: stop fails the run; continue passes{" "}
        {"{ error: { message, code } }"} on; branch runs only the edges from the node&apos;s error handle (below it).
      </p>
      <ConfigForm
        idPrefix="setting"
        schema={settingsForm(entry?.settings_schema)}
        config={settingsOf(node.data.extra)}
        drafts={drafts.of(node.id, "settings")}
        onDraft={(field, fieldDraft) => drafts.set(node.id, "settings", field, fieldDraft)}
        onChange={(settings) => edits.updateNode(node.id, { extra: withSettings(node.data.extra, settings) })}
      />
    </details>
  );
}

/** Test the node, run the canvas up to it, remove it. */
function NodeRuns({ node, draft, flowId, narrow }: Pick<NodePanelProps, "node" | "draft" | "flowId" | "narrow">) {
  const { help, run } = draft;
  const { test, form } = run;
  return (
    <>
      <NodeTest
        key={node.id}
        type={node.data.type}
        nodeId={node.id}
        flowId={flowId}
        config={node.data.config}
        onOutput={(output) => help.onTested(node.id, output)}
        upstreamInput={help.sampleOf(node.id)?.scope.input}
      />
      <button
        type="button"
        disabled={test.start.isPending || runInputProblem(form.getValues("input")) !== true}
        title="Test the canvas up to this node (it and its ancestors), on the run input"
        onClick={() => run.testCanvas(form.getValues("input"), node.id)}
      >
        Run to here
      </button>
      <ErrorMessage error={test.start.error ? describeError(test.start.error) : null} />
      <TestRunResults test={test} />
      {!narrow && (
        <button type="button" className="danger" onClick={() => draft.edits.removeNode(node.id)}>
          Remove node
        </button>
      )}
    </>
  );
}

export function NodePanel({ node, draft, entry, flowId, narrow, credentials }: NodePanelProps) {
  const { help, drafts, edits } = draft;
  const sample = help.sampleOf(node.id);
  const { fieldProblems, nodeProblems } = useNodeProblems(draft, node.id);
  // A reference put in from the input panel: the form starts again from the node's config.
  const [formVersion, setFormVersion] = useState(0);
  return (
    <div>
      <h2>{node.data.catalogName}</h2>
      <p className="muted">
        id <code>{node.id}</code> · {node.data.type}
      </p>
      <p className="muted small">{entry?.description}</p>
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
          value={node.data.name}
          placeholder={node.data.catalogName}
          onChange={(e) => edits.updateNode(node.id, { name: e.target.value })}
        />
      </label>
      {!narrow && <ConnectTo node={node} draft={draft} />}
      <InputPanel
        sample={sample}
        upstream={help.upstreamOf(node.id)}
        labelOf={draft.graph.labelOf}
        onInsert={(path) => {
          if (insertReference(draft, node, entry, path)) setFormVersion((n) => n + 1);
        }}
      />
      <ConfigForm
        key={formVersion}
        schema={entry?.config_schema}
        config={node.data.config}
        problems={fieldProblems}
        onChange={(config) => edits.updateNode(node.id, { config })}
        drafts={drafts.of(node.id, "config")}
        onDraft={(field, fieldDraft) => drafts.set(node.id, "config", field, fieldDraft)}
        credentials={credentials}
        templates={help.templates(node.id, sample)}
      />
      <NodeSettings node={node} draft={draft} entry={entry} />
      <PinOutput node={node} draft={draft} />
      <NodeRuns node={node} draft={draft} flowId={flowId} narrow={narrow} />
    </div>
  );
}
