// "Open in editor" from a run's page (/flows/:id?from_run=<run id>): the editor reads that run and
// its steps through the API; its node outputs are the input panel's sample and can be pinned.
import { useQuery } from "@tanstack/react-query";
import { useSearch } from "wouter";
import { client, read } from "../api";

/** The run named by `from_run` with its steps (null when none is named), as the editor reads it. */
export function useFromRun(flowId: string) {
  const runId = new URLSearchParams(useSearch()).get("from_run");
  const query = useQuery({
    queryKey: ["run", runId, "from-run"],
    enabled: runId !== null,
    staleTime: Infinity,
    queryFn: async () => {
      const { run } = await read(client.GET("/api/runs/{id}", { params: { path: { id: runId! } } }));
      const steps = await read(client.GET("/api/runs/{id}/steps", { params: { path: { id: runId! } } }));
      return { ...run, steps: steps.items };
    },
  });
  // A run of another flow gives this one nothing to pin.
  const run = query.data && query.data.flow_id === flowId ? query.data : null;
  /** The node's output in that run (its last successful attempt) and the branch it took, or undefined. */
  const outputOf = (nodeId: string): { output: unknown; branch?: string } | undefined => {
    const step = run?.steps.filter((s) => s.node_id === nodeId && s.status === "success").at(-1);
    return step ? { output: step.output, ...(step.branch ? { branch: step.branch } : {}) } : undefined;
  };
  return { runId, run, outputOf, error: query.error };
}

export type FromRun = ReturnType<typeof useFromRun>;
