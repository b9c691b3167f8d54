// Home's chart: the workspace's runs by status over the last hour, day and week, as bars side by side (uPlot).
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { Metrics } from "../types";

const WINDOWS = ["last_hour", "last_day", "last_week"] as const;
const SERIES = [
  { key: "success", color: "#2e7d32" },
  { key: "failed", color: "#c62828" },
  { key: "running", color: "#1565c0" },
  { key: "cancelled", color: "#757575" },
] as const;

export function RunsByStatusChart({ runs }: { runs: Metrics["runs"] }) {
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
