// Budgets on the usage page: each with what its period has spent, set and removed by admins. A
// reached budget holds agents' model calls and runs' ai.prompt nodes back until an admin decides
// (the Waits inbox). The editor's flow budget box (flow-budget.tsx) uses the same parts.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { client, describeError, read } from "../api";
import { formatCost, formatTokens } from "../cost";
import { ErrorMessage } from "../ui/status-badge";
import type { Budget } from "../types";

export const amount = (budget: Pick<Budget, "metric">, value: number) =>
  budget.metric === "cost" ? formatCost(value) : `${formatTokens(value)} tokens`;

/** The workspace's budgets (its flows' too), read again once one is set or removed (`done`), and their removal. */
export function useBudgets() {
  const queryClient = useQueryClient();
  const budgets = useQuery({ queryKey: ["usage", "budgets"], queryFn: () => read(client.GET("/api/usage/budgets")) });
  const done = () => queryClient.invalidateQueries({ queryKey: ["usage", "budgets"] });
  const remove = useMutation({
    mutationFn: (budget: Budget) =>
      read(client.DELETE("/api/usage/budgets/{id}", { params: { path: { id: budget.id } } })),
    onSuccess: done,
  });
  return { budgets, done, remove };
}

export function Budgets({ canEdit }: { canEdit: boolean }) {
  const { budgets, done, remove } = useBudgets();
  const items = budgets.data?.items ?? [];
  return (
    <>
      <h2>Budgets</h2>
      <p className="hint">
        Once a budget&apos;s period has spent its limit, an agent&apos;s next model call, or a run&apos;s next AI
        prompt, waits for an admin in the Waits inbox: approve runs that call, reject stops the agent or the run.
        Raising the budget over what is spent (or removing it) approves the waits no other budget holds, and lets later
        calls run unasked.
      </p>
      <ErrorMessage error={budgets.error ? describeError(budgets.error) : null} />
      {budgets.data && items.length === 0 ? (
        <p className="muted">No budget: model calls are not limited.</p>
      ) : (
        <table className="list cards budgets">
          <thead>
            <tr>
              <th>Of</th>
              <th>Limit</th>
              <th>Spent</th>
              {canEdit && <th />}
            </tr>
          </thead>
          <tbody>
            {items.map((budget) => (
              <tr key={budget.id} data-budget={budget.id}>
                <td>{budget.flow_id ? `flow ${budget.flow_name ?? budget.flow_id}` : "the workspace"}</td>
                <td data-label="Limit">
                  {amount(budget, budget.limit)} per {budget.period}
                </td>
                <td data-label="Spent">
                  {amount(budget, budget.spent)}
                  {budget.reached && <span className="badge status-failed">reached</span>}
                </td>
                {canEdit && (
                  <td>
                    <button type="button" onClick={() => remove.mutate(budget)} disabled={remove.isPending}>
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canEdit && <SetBudget onSet={done} />}
      <ErrorMessage error={remove.error ? describeError(remove.error) : null} />
    </>
  );
}

/**
 * The admins' form: the workspace's budget of a metric and period, or the flow's with `flowId`
 * (setting it again changes its limit).
 */
export function SetBudget({ onSet, flowId }: { onSet: () => void; flowId?: string }) {
  const [form, setForm] = useState({
    metric: "cost" as Budget["metric"],
    period: "day" as Budget["period"],
    limit: "",
  });
  const save = useMutation({
    mutationFn: () =>
      read(
        client.PUT("/api/usage/budgets", {
          body: {
            ...(flowId ? { flow_id: flowId } : {}),
            metric: form.metric,
            period: form.period,
            limit: Number(form.limit),
          },
        }),
      ),
    onSuccess: () => {
      setForm({ ...form, limit: "" });
      onSet();
    },
  });
  return (
    <>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <select
          aria-label="Budget metric"
          value={form.metric}
          onChange={(e) => setForm({ ...form, metric: e.target.value as Budget["metric"] })}
        >
          <option value="cost">US dollars</option>
          <option value="tokens">tokens</option>
        </select>
        <select
          aria-label="Budget period"
          value={form.period}
          onChange={(e) => setForm({ ...form, period: e.target.value as Budget["period"] })}
        >
          <option value="day">per day (UTC)</option>
          <option value="month">per month (UTC)</option>
        </select>
        <input
          aria-label="Budget limit"
          placeholder="Limit"
          inputMode="decimal"
          required
          value={form.limit}
          onChange={(e) => setForm({ ...form, limit: e.target.value })}
        />
        <button type="submit" disabled={save.isPending}>
          Set budget
        </button>
      </form>
      <ErrorMessage error={save.error ? describeError(save.error) : null} />
    </>
  );
}
