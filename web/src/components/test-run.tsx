// The editor's test run (POST /api/flows/{id}/test-runs): the canvas as it is, saved or not, run
// once on a typed input as a test run, on an active or an inactive flow; nothing is saved or turned
// on. Its run is polled until it ends; each node's state shows on the canvas (TestRunStates) and
// the steps, with their outputs, in the side panel.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useEffect, useMemo, useState } from "react";
import { Link } from "wouter";
import { client, describeError, read } from "../api";
import type { FlowDefinition } from "../types";
import { runProgress, unended, type NodeState } from "../runs/run-progress";
import { RunSteps } from "../runs/run-steps";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

/** How often a running test run is read again. */
const POLL_MS = 700;

/** Each node's state in the editor's last test run (empty before the first). */
export const TestRunStates = createContext<ReadonlyMap<string, NodeState>>(new Map());

export function useTestRun(flowId: string) {
  const queryClient = useQueryClient();
  const [runId, setRunId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: (asked: {
      definition: FlowDefinition;
      input: Record<string, unknown>;
      until?: string;
      pins?: Record<string, { output: unknown }>;
    }) => read(client.POST("/api/flows/{id}/test-runs", { params: { path: { id: flowId } }, body: asked })),
    onSuccess: (started) => setRunId(started.run_id),
  });
  const run = useQuery({
    queryKey: ["run", runId],
    enabled: runId !== null,
    queryFn: () => read(client.GET("/api/runs/{id}", { params: { path: { id: runId! } } })).then((body) => body.run),
    refetchInterval: (query) => (query.state.data && !unended(query.state.data.status) ? false : POLL_MS),
  });
  const status = run.data?.status;
  const steps = useQuery({
    queryKey: ["run", runId, "steps"],
    enabled: runId !== null,
    queryFn: () => read(client.GET("/api/runs/{id}/steps", { params: { path: { id: runId! } } })),
    refetchInterval: status === undefined || unended(status) ? POLL_MS : false,
  });
  // Its end reads the steps once more, so that the last ones are there, and makes it the flow's
  // last run, whose outputs the input panel and "Test this node" start from.
  useEffect(() => {
    if (!runId || !status || unended(status)) return;
    void queryClient.invalidateQueries({ queryKey: ["run", runId, "steps"] });
    void queryClient.invalidateQueries({ queryKey: ["flow", flowId, "last-run"] });
  }, [runId, status, flowId, queryClient]);
  const nodes = useMemo(() => (runId ? runProgress(steps.data, status) : []), [runId, steps.data, status]);
  const states = useMemo(() => new Map(nodes.map((node) => [node.id, node.state])), [nodes]);
  return { start, runId, status, nodes, states, error: run.error ?? steps.error };
}

export type TestRun = ReturnType<typeof useTestRun>;

/** The last test run: its status, a link to its page, and its steps (failed ones open). */
export function TestRunResults({ test }: { test: TestRun }) {
  const [opened, setOpened] = useState<Map<string, boolean>>(new Map());
  if (!test.runId) return null;
  const open = new Set(test.nodes.filter((n) => opened.get(n.id) ?? n.state === "failed").map((n) => n.id));
  return (
    <section className="test-run" aria-label="Test run" data-run-id={test.runId}>
      <h3>
        Test run <StatusBadge status={test.status ?? "running"} />
      </h3>
      <p className="muted small">
        Not saved, nothing turned on; no outgoing webhook. <Link href={`/runs/${test.runId}`}>Open the run</Link>
      </p>
      <ErrorMessage error={test.error ? describeError(test.error) : null} />
      <RunSteps
        nodes={test.nodes}
        runId={test.runId}
        running={test.status === undefined || unended(test.status)}
        open={open}
        onOpenChange={(nodeId, isOpen) => setOpened((current) => new Map(current).set(nodeId, isOpen))}
      />
    </section>
  );
}
