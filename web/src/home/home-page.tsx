// Home: the workspace's figures from GET /api/metrics (charts load with this route only).
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import { BusiestFlows, HomeFigures } from "./home-figures";
import { RunsByStatusChart } from "./runs-by-status-chart";

export default function HomePage() {
  const metrics = useQuery({
    queryKey: ["metrics"],
    queryFn: () => read(client.GET("/api/metrics")),
    refetchInterval: 15_000,
  });
  if (metrics.error) return <ErrorMessage error={describeError(metrics.error)} />;
  if (!metrics.data) return <p className="loading">Loading figures…</p>;
  const m = metrics.data;
  return (
    <section className="home">
      <h1>Home</h1>
      {m.runs.last_week.total === 0 && (
        <p className="empty">
          No runs this week: <Link href="/flows">create a flow</Link> and run it, and its figures appear here.
        </p>
      )}
      <HomeFigures metrics={m} />
      <h2>Runs by status</h2>
      <RunsByStatusChart runs={m.runs} />
      <h2>Busiest flows (week)</h2>
      <BusiestFlows flows={m.runs_per_flow} />
    </section>
  );
}
