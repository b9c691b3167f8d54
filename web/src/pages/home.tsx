// Home: the workspace's figures from GET /api/metrics (charts load with this route only).
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link } from "wouter";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import { formatDuration } from "../format";
import type { Metrics } from "../types";

const WINDOWS = ["last_hour", "last_day", "last_week"] as const;
const SERIES = [
  { key: "success", color: "#2e7d32" },
  { key: "failed", color: "#c62828" },
  { key: "running", color: "#1565c0" },
  { key: "cancelled", color: "#757575" },
] as const;

function RunsByStatusChart({ runs }: { runs: Metrics["runs"] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const bars = uPlot.paths.bars!({ size: [0.18, 40], align: 0 });
    const offsets = [-0.27, -0.09, 0.09, 0.27];
    const data: uPlot.AlignedData = [[0, 1, 2], ...SERIES.map((s) => WINDOWS.map((w) => runs[w][s.key]))];
    const chart = new uPlot(
      {
        width: Math.min(ref.current.clientWidth || 560, 720),
        height: 220,
        scales: { x: { time: false, range: [-0.5, 2.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          {
            values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? (WINDOWS[t]?.replace("_", " ") ?? "") : "")),
          },
          {},
        ],
        series: [
          {},
          ...SERIES.map((s, i) => ({
            label: s.key,
            stroke: s.color,
            fill: s.color,
            paths: (u: uPlot, seriesIdx: number, idx0: number, idx1: number) => {
              // Shift each status's bar beside the others.
              const xs = u.data[0] as number[];
              const saved = xs.slice();
              for (let j = 0; j < xs.length; j++) xs[j] = saved[j]! + offsets[i]!;
              const path = bars(u, seriesIdx, idx0, idx1);
              for (let j = 0; j < xs.length; j++) xs[j] = saved[j]!;
              return path;
            },
            points: { show: false },
          })),
        ],
      },
      data,
      ref.current,
    );
    return () => chart.destroy();
  }, [runs]);
  return <div ref={ref} className="chart" aria-label="Runs by status" />;
}

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)} %`);

export default function HomePage() {
  const metrics = useQuery({
    queryKey: ["metrics"],
    queryFn: () => read(client.GET("/api/metrics")),
    refetchInterval: 15_000,
  });
  if (metrics.error) return <ErrorMessage error={describeError(metrics.error)} />;
  if (!metrics.data) return <p className="loading">Loading figures…</p>;
  const m = metrics.data;
  const busiest = m.runs_per_flow.slice(0, 8);
  const most = Math.max(1, ...busiest.map((f) => f.total));
  return (
    <section className="home">
      <h1>Home</h1>
      {m.runs.last_week.total === 0 && (
        <p className="empty">
          No runs this week: <Link href="/flows">create a flow</Link> and run it, and its figures appear here.
        </p>
      )}
      <div className="figures">
        <div className="figure">
          <span>Runs today</span>
          <strong>{m.runs.last_day.total}</strong>
        </div>
        <div className="figure">
          <span>Success rate (week)</span>
          <strong>{percent(m.runs.last_week.success_rate)}</strong>
        </div>
        <div className="figure">
          <span>p50 duration</span>
          <strong>{formatDuration(m.duration_ms.p50)}</strong>
        </div>
        <div className="figure">
          <span>p95 duration</span>
          <strong>{formatDuration(m.duration_ms.p95)}</strong>
        </div>
        <div className="figure">
          <span>Webhook deliveries ok</span>
          <strong>{percent(m.webhook_deliveries.success_rate)}</strong>
        </div>
      </div>
      <h2>Runs by status</h2>
      <RunsByStatusChart runs={m.runs} />
      <h2>Busiest flows (week)</h2>
      {busiest.length === 0 ? (
        <p className="muted">Nothing ran this week.</p>
      ) : (
        <ul className="busiest">
          {busiest.map((flow) => (
            <li key={flow.flow_id}>
              <Link href={`/flows/${flow.flow_id}`}>{flow.flow_name}</Link>
              <span className="meter">
                <span className="meter-ok" style={{ width: `${(flow.success / most) * 100}%` }} />
                <span className="meter-failed" style={{ width: `${(flow.failed / most) * 100}%` }} />
              </span>
              <span className="muted">
                {flow.total} runs, {flow.failed} failed
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
