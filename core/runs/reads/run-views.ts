// How the API shows a run: whole (GET /api/runs/{id}), or as a line of a list.
import type { Config } from "../../../lib/config.js";
import type { RunRow } from "../records/run-records.js";

export type RunLinkConfig = Pick<Config, "TEMPORAL_UI_URL" | "TEMPORAL_NAMESPACE">;

/** The run's workflow in the Temporal UI, when one is configured. */
const temporalUrl = (config: RunLinkConfig, runId: string) =>
  config.TEMPORAL_UI_URL
    ? `${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${runId}`
    : null;

export const runView = (config: RunLinkConfig, run: RunRow) => ({
  id: run.id,
  status: run.status,
  duration_ms: run.durationMs,
  output: run.output ?? null,
  flow_id: run.flowId,
  flow_name: run.flowName,
  version: run.version,
  trigger: run.trigger,
  started_at: run.startedAt.toISOString(),
  finished_at: run.finishedAt?.toISOString() ?? null,
  error: run.error ?? null,
  retry_of: run.retryOf,
  parent_run_id: run.parentRunId,
  temporal_url: temporalUrl(config, run.id),
});

export const runSummary = (
  run: Pick<RunRow, "id" | "flowId" | "flowName" | "status" | "startedAt" | "finishedAt" | "durationMs">,
) => ({
  id: run.id,
  flow_id: run.flowId,
  flow_name: run.flowName,
  status: run.status,
  started_at: run.startedAt.toISOString(),
  finished_at: run.finishedAt?.toISOString() ?? null,
  duration_ms: run.durationMs,
});
