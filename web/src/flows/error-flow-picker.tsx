// The flow to run when a run of this one fails: a pick among the workspace's flows.
import { useQuery } from "@tanstack/react-query";
import { client, read } from "../api";

/** The flow to run when a run of this one fails (the definition's error_flow_id), among the workspace's flows. */
export function ErrorFlowPicker(props: {
  flowId: string;
  value: string | undefined;
  onChange: (id: string | undefined) => void;
}) {
  const flows = useQuery({
    queryKey: ["flows", "picker"],
    queryFn: () => read(client.GET("/api/flows", { params: { query: { limit: 200 } } })),
  });
  const others = (flows.data?.items ?? []).filter((item) => item.id !== props.flowId);
  const known = props.value === undefined || others.some((item) => item.id === props.value);
  return (
    <div className="error-flow">
      <label className="field" htmlFor="error-flow">
        When a run fails, run
      </label>
      <select
        id="error-flow"
        name="error-flow"
        value={props.value ?? ""}
        onChange={(e) => props.onChange(e.target.value || undefined)}
      >
        <option value="">no flow</option>
        {others.map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
        {!known && <option value={props.value}>{props.value} (not found)</option>}
      </select>
      <p className="muted small">
        It gets the failed run, its node and its error as input (<code>{"{{ input.failed_run.id }}"}</code>); saved with
        the flow.
      </p>
    </div>
  );
}
