// "Test this node": the selected node's config as the editor holds it (unsaved changes included),
// run once by a worker on a sample input (POST /api/nodes/test). Nothing is recorded.
import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { client, describeError, read } from "../api";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

/** The sample input as typed: a JSON value, or a message saying why it is not one. */
export function parseSampleInput(text: string): { value: unknown } | { problem: string } {
  if (text.trim() === "") return { value: null };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `Sample input: not JSON (${(error as Error).message})` };
  }
}

type NodeTestAnswer = Awaited<ReturnType<typeof testNode>>;

/** Runs the node once through the API. */
function testNode(body: {
  type: string;
  node_id: string;
  flow_id?: string;
  config: Record<string, unknown>;
  input: unknown;
}) {
  return read(client.POST("/api/nodes/test", { body }));
}

/** A test's answer: its status, duration and branch, its error, output and log. */
function NodeTestResult({ result }: { result: NodeTestAnswer }) {
  return (
    <div className="node-test-result" aria-live="polite">
      <p>
        <StatusBadge status={result.status} /> in {result.duration_ms} ms
        {result.branch !== null && <> · branch {result.branch}</>}
      </p>
      {result.error && <ErrorMessage error={result.error.message} />}
      {result.status === "success" && (
        <pre className="json" aria-label="Test output">
          {JSON.stringify(result.output, null, 2)}
        </pre>
      )}
      {result.logs.length > 0 && (
        <ul className="node-test-logs" aria-label="Test log">
          {result.logs.map((entry, index) => (
            <li key={index}>
              <span className={`badge level-${entry.level}`}>{entry.level}</span> {entry.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function NodeTest(props: {
  type: string;
  nodeId: string;
  flowId?: string;
  config: Record<string, unknown>;
  /** A successful test's output (the input panel of the nodes after it shows it). */
  onOutput?: (output: unknown) => void;
  /**
   * The node's input in the flow's last run or test run (its own recorded input, else its one
   * parent's output): the sample starts from it, until the person types their own.
   */
  upstreamInput?: unknown;
}) {
  const upstream = props.upstreamInput === undefined ? "{}" : JSON.stringify(props.upstreamInput, null, 2);
  const [sample, setSample] = useState(upstream);
  const [typed, setTyped] = useState(false);
  // A newer run (a test run ending) gives a newer sample, unless one was typed.
  useEffect(() => {
    if (!typed) setSample(upstream);
  }, [upstream, typed]);
  const parsed = parseSampleInput(sample);
  const test = useMutation({
    mutationFn: (input: unknown) =>
      testNode({
        type: props.type,
        node_id: props.nodeId,
        ...(props.flowId ? { flow_id: props.flowId } : {}),
        config: props.config,
        input,
      }),
    onSuccess: (result) => {
      if (result.status === "success") props.onOutput?.(result.output);
    },
  });
  const result = test.data;
  return (
    <details className="node-test">
      <summary>Test this node</summary>
      <p className="hint">
        Runs this node once on a worker with the sample input (its {"{{ input }}"} and {"{{ trigger }}"}), as configured
        here; the sample starts from the node&apos;s input in the last run or test run. Calls it makes are real; nothing
        is recorded.
      </p>
      <label className="field">
        Sample input (JSON)
        <textarea
          name="node-test-input"
          rows={4}
          value={sample}
          onChange={(e) => {
            setTyped(true);
            setSample(e.target.value);
          }}
        />
      </label>
      {"problem" in parsed && <p className="problems">{parsed.problem}</p>}
      <button
        type="button"
        disabled={"problem" in parsed || test.isPending}
        onClick={() => "value" in parsed && test.mutate(parsed.value)}
      >
        {test.isPending ? "Testing…" : "Run this node"}
      </button>
      <ErrorMessage error={test.error ? describeError(test.error) : null} />
      {result && <NodeTestResult result={result} />}
    </details>
  );
}
