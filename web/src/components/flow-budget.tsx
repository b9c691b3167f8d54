// The editor's Budget box: the flow's own budgets with what each period has spent of its limit,
// set and removed by admins (the workspace's budgets are on the Usage page). A reached one holds
// the flow's AI prompts and agent calls back until an admin decides in the Waits inbox.
import { describeError } from "../api";
import { useSession } from "../session";
import { amount, SetBudget, useBudgets } from "./budgets";
import { ErrorMessage } from "../ui/status-badge";

export function FlowBudget({ flowId }: { flowId: string }) {
  const session = useSession();
  const role = session.data?.workspace.role;
  const canEdit = role === "admin" || role === "owner";
  const { budgets, done, remove } = useBudgets();
  const items = (budgets.data?.items ?? []).filter((budget) => budget.flow_id === flowId);
  return (
    <div className="flow-budget">
      <h3>Budget</h3>
      <p className="muted small">
        Once the flow spends a limit in its day or month (UTC), its next AI prompt or agent call waits for an admin in
        Waits.
      </p>
      <ErrorMessage error={budgets.error ? describeError(budgets.error) : null} />
      {budgets.data && items.length === 0 ? (
        <p className="muted small">No budget of this flow.</p>
      ) : (
        <ul className="small">
          {items.map((budget) => (
            <li key={budget.id} data-flow-budget={budget.id}>
              {amount(budget, budget.spent)} of {amount(budget, budget.limit)} per {budget.period}
              {budget.reached && <span className="badge status-failed">reached</span>}{" "}
              {canEdit && (
                <button type="button" onClick={() => remove.mutate(budget)} disabled={remove.isPending}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && <SetBudget onSet={done} flowId={flowId} />}
      <ErrorMessage error={remove.error ? describeError(remove.error) : null} />
    </div>
  );
}
