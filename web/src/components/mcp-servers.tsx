// The MCP servers an agent may use: an editor of their list (the agents page, the ai.agent node's
// form) and, on an agent run's page, each server with the tools it offered and those called.
import { useState } from "react";
import type { AgentStep, Credential } from "../types";
import { credentialChoices } from "./credential-choices";

/** A server as the agents API and the ai.agent node take it (docs/agents.md, "MCP tools"). */
export interface McpServerEntry {
  url: string;
  /** Absent: Streamable HTTP. */
  transport?: "streamable_http" | "sse";
  label?: string;
  credential_id?: string;
  tools?: string[];
  approval_tools?: string[];
}

/** Servers an agent may name at most (MAX_MCP_SERVERS). */
export const MAX_MCP_SERVERS = 5;
/** The credential types a server's requests may carry (MCP_CREDENTIAL_TYPES). */
export const MCP_CREDENTIAL_TYPES = ["bearer", "oauth2_client_credentials", "api_key", "headers"] as const;
/** The name of the step that lists a server's tools: `<label>__tools/list`. */
const LISTING = "__tools/list";

/** A row as typed: the tool lists as text, names split by commas or spaces. */
interface Row {
  url: string;
  /** "sse" for the older HTTP+SSE transport, else "" (Streamable HTTP). */
  transport: string;
  label: string;
  credential_id: string;
  tools: string;
  approval_tools: string;
}

const names = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function rowOf(server: McpServerEntry): Row {
  return {
    url: server.url,
    transport: server.transport === "sse" ? "sse" : "",
    label: server.label ?? "",
    credential_id: server.credential_id ?? "",
    tools: (server.tools ?? []).join(", "),
    approval_tools: (server.approval_tools ?? []).join(", "),
  };
}

/** The servers the rows describe, without the fields left empty. */
export function entriesOf(rows: readonly Row[]): McpServerEntry[] {
  return rows.map((row) => {
    const tools = names(row.tools);
    const approval = names(row.approval_tools);
    return {
      url: row.url.trim(),
      ...(row.transport === "sse" ? { transport: "sse" as const } : {}),
      ...(row.label.trim() ? { label: row.label.trim() } : {}),
      ...(row.credential_id ? { credential_id: row.credential_id } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(approval.length > 0 ? { approval_tools: approval } : {}),
    };
  });
}

/** One server's fields: transport, URL, label, credential, tool allowlist and approval tools. */
function McpServerFields(props: {
  row: Row;
  index: number;
  idPrefix: string;
  credentials: Credential[] | undefined;
  onSet: (key: keyof Row, text: string) => void;
  onRemove: () => void;
}) {
  const { row, index, idPrefix, credentials, onSet, onRemove } = props;
  const n = index + 1;
  const id = (key: string) => `${idPrefix}-${index}-${key}`;
  return (
    <fieldset className="mcp-server" data-mcp-row={index}>
      <legend>MCP server {n}</legend>
      <label htmlFor={id("transport")}>Transport</label>
      <select id={id("transport")} value={row.transport} onChange={(event) => onSet("transport", event.target.value)}>
        <option value="">Streamable HTTP (current servers)</option>
        <option value="sse">HTTP+SSE (older servers)</option>
      </select>
      <label htmlFor={id("url")}>
        URL ({row.transport === "sse" ? "the event stream's address" : "the Streamable HTTP endpoint"})
      </label>
      <input
        id={id("url")}
        type="url"
        required
        placeholder="https://tools.example.com/mcp"
        value={row.url}
        onChange={(event) => onSet("url", event.target.value)}
      />
      <label htmlFor={id("label")}>Label (its tools reach the model as label__tool; default mcp{n})</label>
      <input
        id={id("label")}
        pattern="[a-z][a-z0-9]{0,15}"
        placeholder={`mcp${n}`}
        value={row.label}
        onChange={(event) => onSet("label", event.target.value)}
      />
      <label htmlFor={id("credential")}>Credential</label>
      <select
        id={id("credential")}
        data-credential-types={MCP_CREDENTIAL_TYPES.join(",")}
        value={row.credential_id}
        onChange={(event) => onSet("credential_id", event.target.value)}
      >
        {credentialChoices(credentials, MCP_CREDENTIAL_TYPES, row.credential_id).map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <label htmlFor={id("tools")}>Tools allowed (comma-separated; empty: all it lists)</label>
      <input id={id("tools")} value={row.tools} onChange={(event) => onSet("tools", event.target.value)} />
      <label htmlFor={id("approval")}>Tools whose calls wait for approval (comma-separated)</label>
      <input
        id={id("approval")}
        value={row.approval_tools}
        onChange={(event) => onSet("approval_tools", event.target.value)}
      />
      <button type="button" onClick={onRemove}>
        Remove MCP server {n}
      </button>
    </fieldset>
  );
}

export interface McpServersEditorProps {
  value: readonly McpServerEntry[];
  onChange: (servers: McpServerEntry[]) => void;
  /** The workspace's credentials (undefined while loading). */
  credentials: Credential[] | undefined;
  /** Prefixes the controls' ids. */
  idPrefix?: string;
}

/** The list of servers, each with its URL, label, credential, tool allowlist and approval tools. */
export function McpServersEditor({ value, onChange, credentials, idPrefix = "mcp" }: McpServersEditorProps) {
  // The rows as typed ("a, " stays while typing); the list given is read once, when the editor opens.
  const [rows, setRows] = useState<Row[]>(() => value.map(rowOf));
  const change = (next: Row[]) => {
    setRows(next);
    onChange(entriesOf(next));
  };
  const set = (index: number, key: keyof Row, text: string) =>
    change(rows.map((row, i) => (i === index ? { ...row, [key]: text } : row)));
  return (
    <div className="mcp-servers-editor stack">
      {rows.length === 0 && <p className="muted small">No MCP server: the agent uses our own tools only.</p>}
      {rows.map((row, index) => (
        <McpServerFields
          key={index}
          row={row}
          index={index}
          idPrefix={idPrefix}
          credentials={credentials}
          onSet={(key, text) => set(index, key, text)}
          onRemove={() => change(rows.filter((_, i) => i !== index))}
        />
      ))}
      <button
        type="button"
        disabled={rows.length >= MAX_MCP_SERVERS}
        onClick={() =>
          change([...rows, { url: "", transport: "", label: "", credential_id: "", tools: "", approval_tools: "" }])
        }
      >
        Add MCP server
      </button>
    </div>
  );
}

/** A server as an agent run's steps show it: its listing and the calls of its tools. */
export interface McpServerOfRun {
  label: string;
  url: string;
  offered: string[];
  note: string | null;
  error: string | null;
  calls: Array<{ number: number; name: string; failed: boolean }>;
}

/** The servers of a run, from its `<label>__tools/list` steps and the tool steps named `<label>__…`. */
export function mcpServersOfRun(steps: readonly AgentStep[]): McpServerOfRun[] {
  return steps
    .filter((step) => step.kind === "tool" && step.name.endsWith(LISTING))
    .map((listing) => {
      const label = listing.name.slice(0, -LISTING.length);
      const output = listing.output as { tools?: string[]; note?: string | null } | null;
      return {
        label,
        url: String((listing.input as { url?: unknown } | null)?.url ?? ""),
        offered: output?.tools ?? [],
        note: output?.note ?? null,
        error: listing.error,
        calls: steps
          .filter((step) => step.kind === "tool" && step !== listing && step.name.startsWith(`${label}__`))
          .map((step) => ({ number: step.number, name: step.name, failed: step.error !== null })),
      };
    });
}

/** On an agent run's page: each MCP server, the tools it offered and the calls made of them. */
export function McpServersOfRun({ steps }: { steps: readonly AgentStep[] }) {
  const servers = mcpServersOfRun(steps);
  if (servers.length === 0) return null;
  return (
    <>
      <h4>MCP servers</h4>
      <table className="list cards mcp-servers-of-run">
        <tbody>
          {servers.map((server) => (
            <tr key={server.label} data-mcp-server={server.label}>
              <td>
                <code>{server.label}</code>
                <div className="muted small">{server.url}</div>
              </td>
              <td data-mcp-offered>
                {server.error ? (
                  <span className="field-error">{server.error}</span>
                ) : server.offered.length === 0 ? (
                  "no tool offered"
                ) : (
                  <>offered: {server.offered.join(", ")}</>
                )}
                {server.note && !server.error && <div className="muted small">{server.note}</div>}
              </td>
              <td data-mcp-called>
                {server.calls.length === 0
                  ? "no call"
                  : `called: ${server.calls.map((call) => `${call.name} (step ${call.number}${call.failed ? ", failed" : ""})`).join(", ")}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
