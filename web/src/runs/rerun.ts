// Starting a rerun, and what a newer version of the flow means for one, shared by the run page's
// actions and its rerun dialog.
import { useMutation } from "@tanstack/react-query";
import { useLocation } from "wouter";
import { client, read } from "../api";
import type { RerunBody } from "./rerun-plan";

/** Starts a rerun of `runId` and opens the new run's page. */
export function useRerun(runId: string) {
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: (body: RerunBody) =>
      read(client.POST("/api/runs/{id}/rerun", { params: { path: { id: runId } }, body })),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
}

/** What the flow's newer version means for this run, in words; undefined while unknown. */
export function versionNote(runVersion: number, latest: number | undefined): string | undefined {
  if (latest === undefined) return undefined;
  return latest > runVersion
    ? `Version ${latest} was saved after this run.`
    : "This run ran the flow's latest version.";
}
