// The agentRun workflow's activity proxies: each names its timeouts and retry policy.
import { proxyActivities } from "@temporalio/workflow";
import type { AgentActivities } from "../../activities/agent.activities.js";

// Tool calls heartbeat: a lost worker is noticed within 15 s and the call retried elsewhere.
export const bookkeeping = proxyActivities<AgentActivities>({
  startToCloseTimeout: "2 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" },
});

/** The model call's proxy: it may take what is left of the agent's time, and at least a second. */
export const modelActivities = (left: number) =>
  proxyActivities<AgentActivities>({
    startToCloseTimeout: Math.max(1000, left),
    heartbeatTimeout: "15 seconds",
    retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 6 },
  });
