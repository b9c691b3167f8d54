// Usage: what the workspace's model calls cost, per day (a chart), flow and model, from
// GET /api/usage; with ?flow=<id>, one flow's. Admins set budgets and the workspace's own prices.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useSearch } from "wouter";
import { client, describeError, read } from "../api";
import { Budgets } from "../components/budgets";
import { useSession } from "../session";
import { ErrorMessage } from "../ui/status-badge";
import { DailyCostChart } from "./daily-cost-chart";
import { Prices } from "./prices";
import { FlowCosts, ModelCosts, UsageFigures } from "./usage-tables";

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;

/** The range's first day (UTC), `days` days up to today included. */
const firstDay = (days: number) => new Date(Date.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);

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
      <UsageFigures usage={u} days={days} />
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
          <FlowCosts flows={u.flows} />
        </>
      )}
      <h2>By model</h2>
      <ModelCosts models={u.models} />
      {!flowId && <Budgets canEdit={canEdit} />}
      {!flowId && <Prices canEdit={canEdit} />}
    </section>
  );
}
