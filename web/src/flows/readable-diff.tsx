// The readable diff of two versions, above the line diff: nodes added and removed, each changed
// node's fields (path: old → new), edges added and removed, and the flow's settings.
import { useMemo } from "react";
import type { FlowDefinition } from "../types";
import {
  formatFieldValue,
  noChanges,
  versionChanges,
  type EdgeRef,
  type FieldChange,
  type NodeRef,
} from "./model/version-changes";

function Fields({ fields }: { fields: FieldChange[] }) {
  return (
    <ul className="change-fields">
      {fields.map((field) => (
        <li key={field.path}>
          <code>{field.path || "(value)"}</code>: <del>{formatFieldValue(field.before)}</del> →{" "}
          <ins>{formatFieldValue(field.after)}</ins>
        </li>
      ))}
    </ul>
  );
}

const nodeText = (node: NodeRef) => (node.label === node.id ? node.id : `${node.label} (${node.id})`);
const edgeText = (edge: EdgeRef) => `${edge.from} → ${edge.to}${edge.branch ? ` (${edge.branch})` : ""}`;

function Section({ title, items }: { title: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <section aria-label={title}>
      <h5>{title}</h5>
      <ul>
        {items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </section>
  );
}

/** `before`: the stored version; `after`: the canvas. */
export function ReadableDiff({ before, after }: { before: FlowDefinition; after: FlowDefinition }) {
  const changes = useMemo(() => versionChanges(before, after), [before, after]);
  if (noChanges(changes)) return <p className="small readable-diff">Nothing changed.</p>;
  return (
    <div className="readable-diff small" aria-label="What changed">
      <Section title="Nodes added" items={changes.nodesAdded.map((node) => `${nodeText(node)}: ${node.type}`)} />
      <Section title="Nodes removed" items={changes.nodesRemoved.map((node) => `${nodeText(node)}: ${node.type}`)} />
      {changes.nodesChanged.length > 0 && (
        <section aria-label="Nodes changed">
          <h5>Nodes changed</h5>
          <ul>
            {changes.nodesChanged.map((node) => (
              <li key={node.id}>
                {nodeText(node)}
                {node.moved && <span className="muted"> (moved)</span>}
                {node.fields.length > 0 && <Fields fields={node.fields} />}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Section title="Edges added" items={changes.edgesAdded.map(edgeText)} />
      <Section title="Edges removed" items={changes.edgesRemoved.map(edgeText)} />
      {changes.settings.length > 0 && (
        <section aria-label="Flow settings changed">
          <h5>Flow settings changed</h5>
          <Fields fields={changes.settings} />
        </section>
      )}
    </div>
  );
}
