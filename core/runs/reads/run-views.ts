// How the API shows a run: whole (GET /api/runs/{id}), or as a line of a list.
import type { Config } from "../../../lib/config.js";
import type { RerunRecord, RunRow } from "../records/run-records.js";

export type RunLinkConfig = Pick<Config, "TEMPORAL_UI_URL" | "TEMPORAL_NAMESPACE">;

/** The run's workflow in the Temporal UI, when one is configured. */
const temporalUrl = (config: RunLinkConfig, runId: string) =>
  config.TEMPORAL_UI_URL
    ? `${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${runId}`
    : null;

/** How a run was rerun, as its page shows it: from where, on which version, carrying what, by whom, with which overrides. */
const rerunView = (record: RerunRecord | null) =>
  record && {
    from: record.from,
    version: record.version,
    of_version: record.ofVersion,
    carried: record.carried,
    by: record.by,
    overrides: record.overrides,
    operation_id: record.operationId ?? null,
  };

export const runView = (config: RunLinkConfig, run: RunRow) => ({
  id: run.id,
  status: run.status,
  duration_ms: run.durationMs,
  output: run.output ?? null,
  flow_id: run.flowId,
  flow_name: run.flowName,
  version: run.version,
  trigger: run.trigger,
  test: run.test,
  started_at: run.startedAt.toISOString(),
  finished_at: run.finishedAt?.toISOString() ?? null,
  error: run.error ?? null,
  retry_of: run.retryOf,
  rerun_of: run.rerunOf,
  rerun_from_node: run.rerunFromNode,
  rerun: rerunView(run.rerun as RerunRecord | null),
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
