// A run page's reads: the run and its steps, polled while it runs unless its event stream delivers,
// and read again when its status changes.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { client, read } from "../api";
import type { RunDetail } from "../types";
import { pollInterval } from "../ui/poll-interval";
import { useRunEvents } from "./run-events";
import { unended } from "./run-progress";

/** How long after a cancel the page still reads the steps its workflow writes as it stops. */
const SETTLING_MS = 20_000;

/** Whether the run was cancelled moments ago: its workflow may still be writing its last steps. */
const settling = (run: RunDetail | undefined) =>
  run?.status === "cancelled" && !!run.finished_at && Date.now() - Date.parse(run.finished_at) < SETTLING_MS;

/** The run and its steps; `running` until the run is read and ended. */
export function useRunReads(id: string) {
  const queryClient = useQueryClient();
  // While the run's event stream delivers, neither query polls; without it (or once it failed) both
  // do. It opens once the run was read (a run of another workspace is a plain 404) and is running.
  const known = queryClient.getQueryData<RunDetail>(["run", id]);
  const streaming = useRunEvents(id, unended(known?.status));
  const run = useQuery({
    queryKey: ["run", id],
    queryFn: () => read(client.GET("/api/runs/{id}", { params: { path: { id } } })).then((body) => body.run),
    refetchInterval: (query) =>
      (query.state.data && !unended(query.state.data.status)) || streaming
        ? false
        : pollInterval(true, query.state.fetchFailureCount),
  });
  const running = !run.data || unended(run.data.status);
  const steps = useQuery({
    queryKey: ["run", id, "steps"],
    queryFn: () => read(client.GET("/api/runs/{id}/steps", { params: { path: { id } } })),
    // One more read after the run ends, so the last steps are there; a cancelled run's workflow
    // writes its skipped nodes after the cancel ended the record, so those are read for a while.
    refetchInterval: (query) =>
      (running && !streaming) || settling(run.data) ? pollInterval(true, query.state.fetchFailureCount) : false,
  });
  // A change of the run's status (its end above all) reads the steps and the log again at once, as
  // the agents page re-reads what an agent run wrote when it ends.
  const status = run.data?.status;
  useEffect(() => {
    if (!status) return;
    void queryClient.invalidateQueries({ queryKey: ["run", id, "steps"] });
    void queryClient.invalidateQueries({ queryKey: ["run", id, "logs"] });
    void queryClient.invalidateQueries({ queryKey: ["run", id, "items"] });
  }, [status, id, queryClient]);
  return { run, steps, running };
}

/** The flow's current version once the run ended: a rerun or retry may run it instead of the run's. */
export function useLatestVersion(flowId: string | undefined, running: boolean) {
  return useQuery({
    queryKey: ["flow", flowId, "current-version"],
    queryFn: () =>
      read(client.GET("/api/flows/{id}", { params: { path: { id: flowId! } } })).then((body) => ({
        version: body.version,
        definition: body.definition,
      })),
    enabled: flowId !== undefined && !running,
  });
}
