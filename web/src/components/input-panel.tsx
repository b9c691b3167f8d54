// The selected node's input panel: the data its templates can read, from the last run or a node
// test, as JSON trees (its input, and each upstream node's output); a click on a key puts its
// reference into the node's field (a set node gets a new field named after it).
import type { PathSegment, TemplateScope } from "../../../core/flows/template";
import { peekValue } from "../format";
import { referenceOf, type Sample } from "./expression-help";

const MAX_KEYS = 50;

function JsonTree(props: {
  value: unknown;
  path: PathSegment[];
  depth: number;
  onInsert: (path: PathSegment[]) => void;
}) {
  const { value, path, depth } = props;
  const entries: Array<[PathSegment, unknown]> = Array.isArray(value)
    ? value.slice(0, MAX_KEYS).map((item, index) => [index, item])
    : value !== null && typeof value === "object"
      ? Object.entries(value).slice(0, MAX_KEYS)
      : [];
  return (
    <ul className="json-tree">
      {entries.map(([key, item]) => {
        const at = [...path, key];
        const reference = `{{ ${referenceOf(at)} }}`;
        const insert = (
          <button
            type="button"
            className="json-key"
            title={`Insert ${reference}`}
            aria-label={`Insert ${reference}`}
            onClick={() => props.onInsert(at)}
          >
            {typeof key === "number" ? `[${key}]` : key}
          </button>
        );
        const branch = item !== null && typeof item === "object";
        return (
          <li key={String(key)}>
            {branch ? (
              <details open={depth < 2}>
                <summary>
                  {insert} <span className="muted small">{Array.isArray(item) ? `${item.length} items` : ""}</span>
                </summary>
                <JsonTree value={item} path={at} depth={depth + 1} onInsert={props.onInsert} />
              </details>
            ) : (
              <>
                {insert} <code className="json-leaf">{peekValue(item, 60)}</code>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** One root of the sample (the node's input, or an upstream node's output) under its heading. */
function SampleRoot(props: {
  title: string;
  value: unknown;
  path: PathSegment[];
  onInsert: (path: PathSegment[]) => void;
}) {
  const { value } = props;
  const nested = value !== null && typeof value === "object";
  return (
    <div className="sample-root" data-sample={props.path.join(".")}>
      <h4>
        <button type="button" className="json-key" onClick={() => props.onInsert(props.path)}>
          {props.title}
        </button>
        {!nested && <code className="json-leaf"> {peekValue(value, 60)}</code>}
      </h4>
      {nested && <JsonTree value={value} path={props.path} depth={0} onInsert={props.onInsert} />}
    </div>
  );
}

export function InputPanel(props: {
  sample: Sample | null;
  upstream: string[];
  labelOf: (nodeId: string) => string;
  onInsert: (path: PathSegment[]) => void;
}) {
  const { sample } = props;
  const scope: TemplateScope | undefined = sample?.scope;
  const shown = props.upstream.filter((id) => scope && id in scope.nodes);
  return (
    <details className="input-panel" open>
      <summary>Input data</summary>
      {!scope ? (
        <p className="hint">
          Run the flow (or test an earlier node) to see what this node gets; then click a value to use it here.
        </p>
      ) : (
        <>
          <p className="hint">From {sample!.source}. Click a value to use it in this node&apos;s field.</p>
          {scope.input !== undefined && (
            <SampleRoot title="input" value={scope.input} path={["input"]} onInsert={props.onInsert} />
          )}
          {shown.map((id) => (
            <SampleRoot
              key={id}
              title={`nodes.${id}${props.labelOf(id) !== id ? ` (${props.labelOf(id)})` : ""}`}
              value={scope.nodes[id]}
              path={["nodes", id]}
              onInsert={props.onInsert}
            />
          ))}
        </>
      )}
    </details>
  );
}
