// The MCP servers editor's rows to the API's mcp_servers, and an agent run's steps to its servers.
import { describe, expect, it } from "vitest";
import type { AgentStep } from "../types";
import { entriesOf, mcpServersOfRun, rowOf } from "./mcp-servers";

describe("MCP server rows", () => {
  it("leave out empty fields and split tool lists by commas or spaces", () => {
    const row = {
      url: " https://a.example/mcp ",
      transport: "",
      label: "",
      credential_id: "",
      tools: "",
      approval_tools: "",
    };
    expect(entriesOf([row])).toEqual([{ url: "https://a.example/mcp" }]);
    const full = {
      url: "https://b.example/mcp",
      transport: "sse",
      label: "kb",
      credential_id: "cred_x",
      tools: "a, b  c,",
      approval_tools: "b",
    };
    expect(entriesOf([full])).toEqual([
      {
        url: "https://b.example/mcp",
        transport: "sse",
        label: "kb",
        credential_id: "cred_x",
        tools: ["a", "b", "c"],
        approval_tools: ["b"],
      },
    ]);
  });

  it("read back what they wrote", () => {
    const server = { url: "https://b.example/mcp", label: "kb", tools: ["a", "b"], approval_tools: ["b"] };
    expect(entriesOf([rowOf({ ...server, transport: "sse" })])).toEqual([{ ...server, transport: "sse" }]);
    expect(entriesOf([rowOf(server)])).toEqual([server]);
  });
});

describe("an agent run's MCP servers", () => {
  const step = (number: number, name: string, extra: Partial<AgentStep> = {}) =>
    ({ number, kind: "tool", name, input: null, output: null, error: null, ...extra }) as AgentStep;

  it("are its tools/list steps, each with the tools offered and the calls of its tools", () => {
    const steps = [
      step(1, "kb__tools/list", {
        input: { url: "https://kb.example/mcp" },
        output: { tools: ["kb__a", "kb__b"], note: null },
      }),
      step(2, "down__tools/list", {
        input: { url: "https://down.example/mcp" },
        error: "MCP server down: unreachable",
      }),
      { ...step(3, "model"), kind: "model" } as AgentStep,
      step(4, "kb__a", { output: { content: "ok" } }),
      step(5, "http_call"),
      step(6, "kb__b", { error: '{"error":"kb__b failed"}' }),
    ];
    expect(mcpServersOfRun(steps)).toEqual([
      {
        label: "kb",
        url: "https://kb.example/mcp",
        offered: ["kb__a", "kb__b"],
        note: null,
        error: null,
        calls: [
          { number: 4, name: "kb__a", failed: false },
          { number: 6, name: "kb__b", failed: true },
        ],
      },
      {
        label: "down",
        url: "https://down.example/mcp",
        offered: [],
        note: null,
        error: "MCP server down: unreachable",
        calls: [],
      },
    ]);
    expect(mcpServersOfRun([step(1, "http_call")])).toEqual([]);
  });
});
