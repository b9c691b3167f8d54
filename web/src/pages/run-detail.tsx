import * as Collapsible from "@radix-ui/react-collapsible";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useLocation } from "wouter";
import { api, describeError, post } from "../api";
import { ErrorMessage, StatusBadge } from "../components/status-badge";
import { Timeline } from "../components/timeline";
import { formatDuration, formatJson, formatTime } from "../format";
import type { RunDetail, Step } from "../types";
import { pollInterval } from "./runs";

function errorText(error: unknown): string {
  if (error === null || error === undefined) return "";
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" ? message : formatJson(error);
}

/** Why the API shows no input for a step, in words. */
const inputUnavailable: Record<NonNullable<Step["input_unavailable"]>, string> = {
  not_run: "(the node did not run)",
  upstream_pending: "(not known yet: an upstream node's output is not recorded yet)",
  definition_missing: "(unknown: the flow version this run used was deleted)",
};

/** A step's row and, opened from its node id (a failed step starts open), its detail row. */
function StepRow({ step }: { step: Step }) {
  const [open, setOpen] = useState(step.status === "failed");
  return (
    <Collapsible.Root asChild open={open} onOpenChange={setOpen}>
      <tbody>
        <tr className={`step step-${step.status}`} data-step={step.node_id}>
          <td>
            <Collapsible.Trigger className="link">
              {open ? "▾" : "▸"} {step.node_id}
            </Collapsible.Trigger>
          </td>
          <td data-label="Type">{step.type}</td>
          <td data-label="Status">
            <StatusBadge status={step.status} />
          </td>
          <td data-label="Attempt">{step.attempt}</td>
          <td data-label="Branch">{step.branch ?? ""}</td>
          <td data-label="Duration">{formatDuration(step.duration_ms)}</td>
        </tr>
        <Collapsible.Content asChild>
          <tr className="step-detail">
            <td colSpan={6}>
              {step.error !== null && step.error !== undefined && (
                <div className="step-error" role="alert">
                  <strong>Error:</strong> {errorText(step.error)}
                </div>
              )}
              <div className="step-io">
                <div data-io="input">
                  <h4>Input</h4>
                  <pre>
                    {step.input_unavailable ? inputUnavailable[step.input_unavailable] : formatJson(step.input)}
                  </pre>
                </div>
                <div data-io="output">
                  <h4>Output</h4>
                  <pre>{step.output === null ? "(none)" : formatJson(step.output)}</pre>
                </div>
              </div>
              <p className="muted small">
                Started {formatTime(step.started_at)} · finished {formatTime(step.finished_at)}
              </p>
            </td>
          </tr>
        </Collapsible.Content>
      </tbody>
    </Collapsible.Root>
  );
}

export function RunDetailPage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const run = useQuery({
    queryKey: ["run", id],
    queryFn: () => api<{ run: RunDetail }>(`/api/runs/${id}`).then((body) => body.run),
    refetchInterval: (query) =>
      query.state.data && query.state.data.status !== "running"
        ? false
        : pollInterval(true, query.state.fetchFailureCount),
  });
  const running = !run.data || run.data.status === "running";
  const steps = useQuery({
    queryKey: ["run", id, "steps"],
    queryFn: () => api<{ items: Step[] }>(`/api/runs/${id}/steps`),
    // One more read after the run ends, so the last steps are there.
    refetchInterval: (query) => (running ? pollInterval(true, query.state.fetchFailureCount) : false),
  });
  // A change of the run's status (its end above all) reads the steps again at once, as the agents
  // page re-reads what an agent run wrote when it ends.
  const status = run.data?.status;
  useEffect(() => {
    if (status) void queryClient.invalidateQueries({ queryKey: ["run", id, "steps"] });
  }, [status, id, queryClient]);

  const retry = useMutation({
    mutationFn: () => post<{ run_id: string }>(`/api/runs/${id}/retry`),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
  const cancel = useMutation({
    mutationFn: () => post(`/api/runs/${id}/cancel`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["run", id] }),
  });

  if (run.error) return <ErrorMessage error={describeError(run.error)} />;
  if (!run.data) return <p className="loading">Loading the run…</p>;
  const r = run.data;
  const items = steps.data?.items ?? [];
  return (
    <section className="run-detail">
      <p>
        <Link href="/runs">← Runs</Link>
      </p>
      <h1>
        Run <code>{r.id}</code> <StatusBadge status={r.status} />
      </h1>
      <p className="muted">
        <Link href={`/flows/${r.flow_id}`}>{r.flow_name}</Link> v{r.version} · {r.trigger} · started{" "}
        {formatTime(r.started_at)} · {formatDuration(r.duration_ms)}
        {r.retry_of && (
          <>
            {" "}
            · retry of <Link href={`/runs/${r.retry_of}`}>{r.retry_of}</Link>
          </>
        )}
        {r.temporal_url && (
          <>
            {" "}
            ·{" "}
            <a href={r.temporal_url} target="_blank" rel="noreferrer">
              Temporal UI
            </a>
          </>
        )}
      </p>
      <div className="toolbar">
        {r.status === "running" && (
          <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            Cancel run
          </button>
        )}
        {(r.status === "failed" || r.status === "cancelled") && (
          <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
            Retry from the failed node
          </button>
        )}
      </div>
      <ErrorMessage
        error={retry.error ? describeError(retry.error) : cancel.error ? describeError(cancel.error) : null}
      />
      {r.error !== null && r.error !== undefined && (
        <div className="run-error" role="alert">
          <strong>The run failed:</strong> {errorText(r.error)}
        </div>
      )}
      <h2>Timeline</h2>
      <Timeline steps={items} now={Date.now()} />
      <h2>Steps</h2>
      <ErrorMessage error={steps.error ? describeError(steps.error) : null} />
      {items.length === 0 ? (
        <p className="empty">{running ? "Waiting for the first node to start…" : "This run recorded no steps."}</p>
      ) : (
        <table className="list steps cards">
          <thead>
            <tr>
              <th>Node</th>
              <th>Type</th>
              <th>Status</th>
              <th>Attempt</th>
              <th>Branch</th>
              <th>Duration</th>
            </tr>
          </thead>
          {/* One tbody per step: its row and its detail row open and close together. */}
          {items.map((step) => (
            <StepRow key={`${step.node_id}-${step.attempt}`} step={step} />
          ))}
        </table>
      )}
      {r.status === "success" && (
        <>
          <h2>Output</h2>
          <pre>{formatJson(r.output)}</pre>
        </>
      )}
    </section>
  );
}
