// Which version production runs and which is the draft, and the flow's status, as the editor knows
// them: every save, publish and status change that the API answers updates them here (and the
// cached flow and lists the rest of the dashboard reads).
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { FlowDetail } from "../types";
import { headVersion, type PublishState } from "./model/publishing";

export function useFlowVersions(flow: FlowDetail) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<PublishState>({ published: flow.version, draft: flow.draft_version });
  const [status, setStatus] = useState(flow.status);
  /** Takes what the API answered: the published version, the draft and the status. */
  const remember = (answered: FlowDetail): PublishState => {
    const next = { published: answered.version, draft: answered.draft_version };
    setState(next);
    setStatus(answered.status);
    queryClient.setQueryData(["flow", flow.id], answered);
    void queryClient.invalidateQueries({ queryKey: ["flows"] });
    void queryClient.invalidateQueries({ queryKey: ["flow", flow.id, "versions"] });
    return next;
  };
  return { ...state, head: headVersion(state), state, status, remember };
}

export type FlowVersions = ReturnType<typeof useFlowVersions>;
