// An agent's memory, its first page first, with a form to write an entry; it follows the agent
// name as it is typed.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { formatJson, formatTime } from "../format";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage } from "../ui/status-badge";

function useMemoryWrite(agent: string, onWritten: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: { key: string; value: string }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = value;
      }
      return read(client.POST("/api/agent/memory", { body: { agent, key, value: parsed } }));
    },
    onSuccess: () => {
      onWritten();
      void queryClient.invalidateQueries({ queryKey: ["agent-memory", agent] });
    },
  });
}

export function AgentMemory({ agent }: { agent: string }) {
  const memoryForm = useForm({ defaultValues: { key: "", value: "" } });
  // Another agent's memory starts at its first page.
  const memoryPages = useCursorPages({ labels: IN_ORDER, resetOn: [agent] });
  const memory = useQuery({
    queryKey: ["agent-memory", agent, memoryPages.cursor],
    queryFn: () =>
      read(
        client.GET("/api/agent/memory", { params: { query: { agent, limit: 20, cursor: memoryPages.cursor } } }),
      ).then((body) => ("items" in body ? body : { items: [body], next_cursor: null })),
  });
  const write = useMemoryWrite(agent, () => memoryForm.reset());
  return (
    <div className="card">
      <h2>Memory of {agent}</h2>
      <ErrorMessage error={memory.error ? describeError(memory.error) : null} />
      {(memory.data?.items ?? []).length === 0 ? (
        <p className="muted">No memory entries: the agent writes them with memory.write, or add one below.</p>
      ) : (
        <table className="list cards agent-memory">
          <tbody>
            {memory.data!.items.map((entry) => (
              <tr key={entry.key}>
                <td>
                  <code>{entry.key}</code>
                </td>
                <td>
                  <pre>{formatJson(entry.value)}</pre>
                </td>
                <td className="muted small">{formatTime(entry.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {memoryPages.pager(memory.data?.next_cursor)}
      <form className="toolbar" onSubmit={memoryForm.handleSubmit((entry) => write.mutate(entry))}>
        <input aria-label="Memory key" placeholder="key" required {...memoryForm.register("key")} />
        <input
          aria-label="Memory value"
          placeholder="value (JSON or text)"
          required
          {...memoryForm.register("value")}
        />
        <button type="submit">Write</button>
      </form>
      <ErrorMessage error={write.error ? describeError(write.error) : null} />
    </div>
  );
}
