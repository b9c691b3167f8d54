// A run page's live updates: one EventSource per page (GET /api/runs/{id}/events) writing each
// `state` into the run's and its steps' queries, so that they need not poll. Any error (no
// EventSource, a refused stream, a lost connection) closes it for good: the page polls as before.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { apiBase, apiUrl } from "../api";
import type { RunDetail, RunSteps } from "../types";

/**
 * Streams the run's updates while `running`; answers whether it does (then the page's queries need
 * not poll). False without EventSource and once the stream failed.
 */
export function useRunEvents(id: string, running: boolean): boolean {
  const queryClient = useQueryClient();
  const [failed, setFailed] = useState(false);
  const streaming = running && !failed && typeof EventSource !== "undefined";
  useEffect(() => {
    if (!streaming) return;
    const source = new EventSource(apiUrl(`/api/runs/${id}/events`), { withCredentials: apiBase() !== "" });
    source.addEventListener("state", (event) => {
      const state = JSON.parse((event as MessageEvent<string>).data) as { run: RunDetail; steps: RunSteps };
      queryClient.setQueryData(["run", id], state.run);
      queryClient.setQueryData(["run", id, "steps"], state.steps);
    });
    // After the final state: closed here, or the browser would open it again.
    source.addEventListener("end", () => source.close());
    source.onerror = () => {
      source.close();
      setFailed(true);
    };
    return () => source.close();
  }, [id, streaming, queryClient]);
  return streaming;
}
