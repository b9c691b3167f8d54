// Starter flows (GET /api/templates; POST /api/flows {template}). A test validates each of them
// against the node catalog, so a template never offers a flow that cannot be saved.

export interface FlowTemplate {
  id: string;
  name: string;
  description: string;
  definition: { nodes: object[]; edges: object[] };
}

export const FLOW_TEMPLATES: readonly FlowTemplate[] = [
  {
    id: "hello-world",
    name: "Hello world",
    description: "A manual trigger and a log entry greeting the name given as input: the smallest runnable flow.",
    definition: {
      nodes: [
        { id: "start", type: "manual", name: "Start", position: { x: 0, y: 0 } },
        {
          id: "greet",
          type: "log",
          name: "Greet",
          config: { level: "info", message: "Hello, {{ input.name }}!" },
          position: { x: 240, y: 0 },
        },
      ],
      edges: [{ from: "start", to: "greet" }],
    },
  },
  {
    id: "route-by-amount",
    name: "Route orders by amount",
    description:
      "A condition sends orders above 100 to one path and the rest to another; a merge joins whichever path ran.",
    definition: {
      nodes: [
        { id: "order", type: "manual", name: "Order received", position: { x: 0, y: 80 } },
        {
          id: "is_large",
          type: "condition",
          name: "Amount above 100?",
          config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
          position: { x: 240, y: 80 },
        },
        {
          id: "review",
          type: "log",
          name: "Flag for review",
          config: { level: "warn", message: "Large order {{ input.id }}: {{ input.amount }}" },
          position: { x: 480, y: 0 },
        },
        {
          id: "accept",
          type: "log",
          name: "Accept",
          config: { level: "info", message: "Order {{ input.id }} accepted" },
          position: { x: 480, y: 160 },
        },
        { id: "done", type: "merge", name: "Done", config: { mode: "first" }, position: { x: 720, y: 80 } },
      ],
      edges: [
        { from: "order", to: "is_large" },
        { from: "is_large", to: "review", branch: "true" },
        { from: "is_large", to: "accept", branch: "false" },
        { from: "review", to: "done" },
        { from: "accept", to: "done" },
      ],
    },
  },
  {
    id: "triage-by-kind",
    name: "Triage by kind",
    description: "A branch node routes each request by its kind (bug, feature, anything else) to its own path.",
    definition: {
      nodes: [
        { id: "request", type: "manual", name: "Request", position: { x: 0, y: 80 } },
        {
          id: "kind",
          type: "branch",
          name: "Kind",
          config: { value: "{{ input.kind }}", cases: ["bug", "feature"] },
          position: { x: 240, y: 80 },
        },
        {
          id: "bug",
          type: "log",
          config: { level: "error", message: "Bug: {{ input.title }}" },
          position: { x: 480, y: 0 },
        },
        {
          id: "feature",
          type: "log",
          config: { message: "Feature request: {{ input.title }}" },
          position: { x: 480, y: 80 },
        },
        { id: "other", type: "debug", config: { label: "unclassified" }, position: { x: 480, y: 160 } },
      ],
      edges: [
        { from: "request", to: "kind" },
        { from: "kind", to: "bug", branch: "bug" },
        { from: "kind", to: "feature", branch: "feature" },
        { from: "kind", to: "other", branch: "default" },
      ],
    },
  },
  {
    id: "delayed-follow-up",
    name: "Delayed follow-up",
    description: "Waits on a durable timer, then records a follow-up: the wait survives restarts of everything.",
    definition: {
      nodes: [
        { id: "signup", type: "manual", name: "Sign-up", position: { x: 0, y: 0 } },
        { id: "wait", type: "delay", name: "Wait a day", config: { duration: "1d" }, position: { x: 240, y: 0 } },
        {
          id: "follow_up",
          type: "log",
          name: "Follow up",
          config: { message: "Follow up with {{ trigger.email }}" },
          position: { x: 480, y: 0 },
        },
      ],
      edges: [
        { from: "signup", to: "wait" },
        { from: "wait", to: "follow_up" },
      ],
    },
  },
];

export function findTemplate(id: string): FlowTemplate | undefined {
  return FLOW_TEMPLATES.find((template) => template.id === id);
}
