// The agent catalog: tools an agent may use and the presets offered by GET /api/agents.

export const AGENT_TOOLS = [
  {
    name: "http.call",
    description: "Makes an HTTP request through the egress guard and returns status, headers and body.",
  },
  { name: "flow.run", description: "Runs a flow of the same workspace as a child workflow and returns its output." },
  { name: "log.write", description: "Writes an entry to the agent's log." },
  { name: "memory.read", description: "Reads a value from the agent's persistent memory by key." },
  { name: "memory.write", description: "Writes a value to the agent's persistent memory under a key." },
] as const;

export type AgentToolName = (typeof AGENT_TOOLS)[number]["name"];

export interface AgentPreset {
  id: string;
  name: string;
  description: string;
  tools: AgentToolName[];
  system_prompt: string;
  limits: { max_steps: number; max_tokens: number; timeout_ms: number };
}

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    id: "assistant",
    name: "General assistant",
    description: "Answers with every tool at hand: web requests, flows, memory and its log.",
    tools: ["http.call", "flow.run", "log.write", "memory.read", "memory.write"],
    system_prompt:
      "You are a careful automation assistant. Use tools when they help, keep notes in memory for later runs, and answer concisely.",
    limits: { max_steps: 20, max_tokens: 100_000, timeout_ms: 15 * 60_000 },
  },
  {
    id: "researcher",
    name: "Researcher",
    description: "Gathers information over HTTP and remembers what it found; does not start flows.",
    tools: ["http.call", "log.write", "memory.read", "memory.write"],
    system_prompt:
      "You research a question by calling HTTP APIs, record your sources in the log, store durable findings in memory, and report what you found.",
    limits: { max_steps: 30, max_tokens: 150_000, timeout_ms: 30 * 60_000 },
  },
  {
    id: "orchestrator",
    name: "Flow orchestrator",
    description: "Decides which flows of the workspace to run and in what order, and reports their results.",
    tools: ["flow.run", "log.write", "memory.read", "memory.write"],
    system_prompt:
      "You accomplish tasks by running the workspace's flows with suitable inputs, checking each result before the next step.",
    limits: { max_steps: 15, max_tokens: 80_000, timeout_ms: 60 * 60_000 },
  },
];
