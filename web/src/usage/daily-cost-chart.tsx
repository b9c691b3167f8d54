// The usage page's chart: cost per day as bars (uPlot).
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatCost } from "../cost";
import type { WorkspaceUsage } from "../types";

export function DailyCostChart({ days }: { days: WorkspaceUsage["days"] }) {
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
