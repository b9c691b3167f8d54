// Usage: what the workspace's model calls cost, per day (a chart), flow and model, from
// GET /api/usage; with ?flow=<id>, one flow's. Admins set budgets and the workspace's own prices.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useSearch } from "wouter";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { client, describeError, read } from "../api";
import { formatCost, formatTokens } from "../cost";
import { Budgets } from "../components/budgets";
import { ErrorMessage } from "../ui/status-badge";
import { useSession } from "../session";
import type { ModelPrice, WorkspaceUsage } from "../types";

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;

/** The range's first day (UTC), `days` days up to today included. */
const firstDay = (days: number) => new Date(Date.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);

function DailyCostChart({ days }: { days: WorkspaceUsage["days"] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const xs = days.map((_, i) => i);
    const chart = new uPlot(
      {
        width: Math.min(ref.current.clientWidth || 560, 960),
        height: 220,
        scales: {
          x: { time: false, range: [-0.5, days.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 0.01] },
        },
        axes: [
          {
            values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) && days[t] ? days[t].day.slice(5) : "")),
          },
          { values: (_u, ticks) => ticks.map((t) => formatCost(t)), size: 70 },
        ],
        series: [
          {},
          {
            label: "cost (USD)",
            stroke: "#1565c0",
            fill: "#1565c0",
            paths: uPlot.paths.bars!({ size: [0.7, 40], align: 0 }),
            points: { show: false },
            value: (_u, v) => formatCost(v),
          },
        ],
      },
      [xs, days.map((d) => d.cost)],
      ref.current,
    );
    return () => chart.destroy();
  }, [days]);
  return <div ref={ref} className="chart" role="img" aria-label="Cost per day" />;
}

function Prices({ canEdit }: { canEdit: boolean }) {
  const queryClient = useQueryClient();
  const prices = useQuery({ queryKey: ["usage", "prices"], queryFn: () => read(client.GET("/api/usage/prices")) });
  const [form, setForm] = useState({ provider: "openai" as "openai" | "anthropic", model: "", input: "", output: "" });
  const done = () => queryClient.invalidateQueries({ queryKey: ["usage", "prices"] });
  const save = useMutation({
    mutationFn: () =>
      read(
        client.PUT("/api/usage/prices", {
          body: {
            provider: form.provider,
            model: form.model.trim(),
            input_per_mtok: Number(form.input),
            output_per_mtok: Number(form.output),
          },
        }),
      ),
    onSuccess: () => {
      setForm({ ...form, model: "", input: "", output: "" });
      return done();
    },
  });
  const remove = useMutation({
    mutationFn: (price: ModelPrice) =>
      read(
        client.DELETE("/api/usage/prices", {
          params: { query: { provider: price.provider as "openai" | "anthropic", model: price.model } },
        }),
      ),
    onSuccess: done,
  });
  return (
    <>
      <h2>Prices</h2>
      <p className="hint">
        US dollars per million tokens. A workspace price replaces the shipped one for calls from now on; recorded calls
        keep their cost.
      </p>
      <ErrorMessage error={prices.error ? describeError(prices.error) : null} />
      <table className="list cards prices">
        <thead>
          <tr>
            <th>Model</th>
            <th>Input</th>
            <th>Output</th>
            <th>Source</th>
            {canEdit && <th />}
          </tr>
        </thead>
        <tbody>
          {(prices.data?.items ?? []).map((price) => (
            <tr key={`${price.provider}/${price.model}`}>
              <td>
                {price.provider} <code>{price.model}</code>
              </td>
              <td data-label="Input">${price.input_per_mtok}</td>
              <td data-label="Output">${price.output_per_mtok}</td>
              <td data-label="Source">{price.source === "workspace" ? "this workspace" : "default"}</td>
              {canEdit && (
                <td>
                  {price.source === "workspace" && (
                    <button type="button" onClick={() => remove.mutate(price)} disabled={remove.isPending}>
                      {price.default ? "Back to default" : "Remove"}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {canEdit && (
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <select
            aria-label="Provider"
            value={form.provider}
            onChange={(e) => setForm({ ...form, provider: e.target.value as "openai" | "anthropic" })}
          >
            <option value="openai">openai</option>
            <option value="anthropic">anthropic</option>
          </select>
          <input
            aria-label="Model"
            placeholder="Model"
            required
            value={form.model}
            onChange={(e) => setForm({ ...form, model: e.target.value })}
          />
          <input
            aria-label="Input price"
            placeholder="Input $/M"
            inputMode="decimal"
            required
            value={form.input}
            onChange={(e) => setForm({ ...form, input: e.target.value })}
          />
          <input
            aria-label="Output price"
            placeholder="Output $/M"
            inputMode="decimal"
            required
            value={form.output}
            onChange={(e) => setForm({ ...form, output: e.target.value })}
          />
          <button type="submit" disabled={save.isPending}>
            Set price
          </button>
        </form>
      )}
      <ErrorMessage
        error={save.error ? describeError(save.error) : remove.error ? describeError(remove.error) : null}
      />
    </>
  );
}

export default function UsagePage() {
  const session = useSession();
  const flowId = new URLSearchParams(useSearch()).get("flow") ?? undefined;
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const usage = useQuery({
    queryKey: ["usage", days, flowId],
    queryFn: () =>
      read(
        client.GET("/api/usage", {
          params: { query: { from: firstDay(days), ...(flowId ? { flow_id: flowId } : {}) } },
        }),
      ),
    refetchInterval: 30_000,
  });
  const role = session.data?.workspace.role;
  const canEdit = role === "admin" || role === "owner";
  if (usage.error) return <ErrorMessage error={describeError(usage.error)} />;
  if (!usage.data) return <p className="loading">Loading usage…</p>;
  const u = usage.data;
  const today = u.days.at(-1);
  const flowName = flowId ? (u.flows.find((f) => f.flow_id === flowId)?.flow_name ?? flowId) : undefined;
  return (
    <section className="usage">
      <h1>{flowName ? `Usage of ${flowName}` : "Usage"}</h1>
      {flowId && (
        <p>
          <Link href={`/flows/${flowId}`}>← The flow</Link> · <Link href="/usage">The whole workspace</Link>
        </p>
      )}
      <div className="toolbar">
        <select
          aria-label="Range"
          value={days}
          onChange={(e) => setDays(Number(e.target.value) as (typeof RANGES)[number])}
        >
          {RANGES.map((n) => (
            <option key={n} value={n}>
              Last {n} days
            </option>
          ))}
        </select>
      </div>
      <div className="figures">
        <div className="figure" data-figure="today">
          <span>Cost today</span>
          <strong>{formatCost(today?.cost ?? 0)}</strong>
        </div>
        <div className="figure" data-figure="range">
          <span>Cost, last {days} days</span>
          <strong>{formatCost(u.total.cost)}</strong>
        </div>
        <div className="figure">
          <span>Model calls</span>
          <strong>{formatTokens(u.total.calls)}</strong>
        </div>
        <div className="figure">
          <span>Tokens in / out</span>
          <strong>
            {formatTokens(u.total.input_tokens)} / {formatTokens(u.total.output_tokens)}
          </strong>
        </div>
      </div>
      {u.total.unpriced_calls > 0 && (
        <p className="notice">
          {u.total.unpriced_calls} calls were of models without a price: their cost is not counted. Set their price
          below.
        </p>
      )}
      <h2>Cost per day (UTC)</h2>
      <DailyCostChart days={u.days} />
      {!flowId && (
        <>
          <h2>By flow</h2>
          {u.flows.length === 0 ? (
            <p className="muted">No model calls in this range.</p>
          ) : (
            <table className="list cards">
              <thead>
                <tr>
                  <th>Flow</th>
                  <th>Calls</th>
                  <th>Tokens</th>
                  <th>Cost</th>
                </tr>
              </thead>
              <tbody>
                {u.flows.map((f) => (
                  <tr key={f.flow_id ?? "api"}>
                    <td>
                      {f.flow_id ? (
                        <Link href={`/usage?flow=${f.flow_id}`}>{f.flow_name ?? f.flow_id}</Link>
                      ) : (
                        <span className="muted">agent runs of the API</span>
                      )}
                    </td>
                    <td data-label="Calls">{f.calls}</td>
                    <td data-label="Tokens">{formatTokens(f.input_tokens + f.output_tokens)}</td>
                    <td data-label="Cost">{formatCost(f.cost)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <h2>By model</h2>
      {u.models.length === 0 ? (
        <p className="muted">No model calls in this range.</p>
      ) : (
        <table className="list cards">
          <thead>
            <tr>
              <th>Model</th>
              <th>Calls</th>
              <th>Tokens in / out</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {u.models.map((m) => (
              <tr key={`${m.provider}/${m.model}`}>
                <td>
                  {m.provider} <code>{m.model}</code>
                </td>
                <td data-label="Calls">{m.calls}</td>
                <td data-label="Tokens">
                  {formatTokens(m.input_tokens)} / {formatTokens(m.output_tokens)}
                </td>
                <td data-label="Cost">{m.unpriced_calls === m.calls ? "no price" : formatCost(m.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!flowId && <Budgets canEdit={canEdit} />}
      {!flowId && <Prices canEdit={canEdit} />}
    </section>
  );
}
