// Entry node of a flow served as an MCP tool (core/mcp/): the workspace's MCP endpoint lists it
// under its name, with its description and input schema, and tools/call starts a run of the flow
// with the call's arguments as the run's input (trigger `mcp`).
import { z } from "zod";
import { defineNode } from "../define-node.js";
import { compileToolSchema } from "./tool-schema.js";

/** Names the endpoint's own tools take (svc_run_status): a flow's tool may not start with it. */
export const RESERVED_TOOL_PREFIX = "svc_";
const MAX_SCHEMA_BYTES = 64 * 1024;

export const mcpToolConfig = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -")
    .refine((name) => !name.toLowerCase().startsWith(RESERVED_TOOL_PREFIX), {
      message: `must not start with ${RESERVED_TOOL_PREFIX} (the endpoint's own tools do)`,
    })
    .meta({ label: "Tool name", placeholder: "create_invoice" }),
  description: z.string().max(2000).default("").meta({ label: "Description (what the tool does, for the model)" }),
  input_schema: z
    .record(z.string(), z.unknown())
    .default({ type: "object", properties: {} })
    .refine((schema) => schema.type === "object", { message: 'must be a JSON Schema with "type": "object"' })
    .refine((schema) => JSON.stringify(schema).length <= MAX_SCHEMA_BYTES, { message: "must be at most 64 KB" })
    .superRefine((schema, ctx) => {
      const outcome = compileToolSchema(schema);
      if ("error" in outcome) ctx.addIssue({ code: "custom", message: `is not a JSON Schema: ${outcome.error}` });
    })
    .meta({ label: "Input JSON Schema (the run's input)" }),
  timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(30_000)
    .meta({ label: "Longest wait for the run's output (ms); past it, the call answers the run's id" }),
});

export type McpToolConfig = z.output<typeof mcpToolConfig>;

export const mcpToolNode = defineNode({
  type: "mcp_tool",
  version: 1,
  name: "MCP tool",
  category: "trigger",
  description:
    "Serves the flow as a tool of the workspace's MCP endpoint (POST /api/mcp, an API token with the run scope): tools/list shows its name, description and input schema, tools/call runs the flow with the call's arguments as the input and answers the run's output, or its id and address when it runs past timeout_ms. Its output is the run's input.",
  kind: "trigger",
  execution: "local",
  config: mcpToolConfig,
});
