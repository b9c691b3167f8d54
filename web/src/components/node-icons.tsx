// An icon for each node type (palette, editor canvas, run canvas), drawn here as a few strokes on
// a 24-px grid in the text's colour; a type without one (a custom node) gets its category's.
const ICONS: Record<string, string[]> = {
  manual: ["M8 5v14l11-7z"],
  http_trigger: ["M3 12h11", "M10 8l4 4-4 4", "M17 4h3v16h-3"],
  webhook: ["M13 2L4 14h7l-1 8 9-12h-7z"],
  schedule: ["M3 12a9 9 0 1 0 18 0a9 9 0 1 0-18 0", "M12 7v5l3 2"],
  condition: ["M12 3l9 9-9 9-9-9z"],
  branch: ["M6 4v16", "M6 12c6 0 12-2 12-8", "M6 12c6 0 12 2 12 8"],
  merge: ["M4 4c0 6 4 8 10 8h6", "M4 20c0-6 4-8 10-8", "M17 9l3 3-3 3"],
  loop: ["M4 12a8 8 0 0 1 14-5.3", "M18 3v4h-4", "M20 12a8 8 0 0 1-14 5.3", "M6 21v-4h4"],
  "flow.call": ["M4 5h10v14H4z", "M10 12h10", "M17 9l3 3-3 3"],
  wait: ["M7 3h10v3l-5 6 5 6v3H7v-3l5-6-5-6z"],
  delay: ["M4 13a8 8 0 1 0 16 0a8 8 0 1 0-16 0", "M12 9v4", "M9 2h6"],
  transform: ["M4 7h13", "M14 4l3 3-3 3", "M20 17H7", "M10 14l-3 3 3 3"],
  set: ["M4 20h4L19 9l-4-4L4 16z", "M13 7l4 4"],
  code: ["M8 7l-5 5 5 5", "M16 7l5 5-5 5"],
  data_table: ["M3 5h18v14H3z", "M3 10h18", "M3 15h18", "M9 5v14"],
  kv: ["M3 12a4 4 0 1 0 8 0a4 4 0 1 0-8 0", "M11 12h10", "M18 12v3", "M21 12v2"],
  object_storage: ["M4 6c0-3 16-3 16 0v12c0 3-16 3-16 0z", "M4 6c0 3 16 3 16 0"],
  http_request: ["M3 12a9 9 0 1 0 18 0a9 9 0 1 0-18 0", "M3 12h18", "M12 3c3 3 3 15 0 18", "M12 3c-3 3-3 15 0 18"],
  send_webhook: ["M21 3L3 11l7 3 3 7z", "M10 14L21 3"],
  "ai.agent": ["M12 3l2 6 6 2-6 2-2 6-2-6-6-2 6-2z", "M19 3v4", "M17 5h4"],
  "ai.prompt": ["M4 5h16v11H9l-5 4z", "M8 9h8", "M8 12h5"],
  log: ["M5 6h14", "M5 12h14", "M5 18h9"],
  debug: ["M8 10h8v6a4 4 0 0 1-8 0z", "M9 10a3 3 0 0 1 6 0", "M4 13h4", "M16 13h4", "M5 20l3-2", "M19 20l-3-2"],
};

/** The built-in types' categories, for a run's canvas (which has no catalog at hand). */
const BUILTIN_CATEGORY: Record<string, string> = {
  "ai.agent": "ai",
  "ai.prompt": "ai",
  branch: "logic",
  code: "data",
  condition: "logic",
  data_table: "data",
  debug: "utility",
  delay: "utility",
  "flow.call": "logic",
  http_request: "integration",
  http_trigger: "trigger",
  webhook: "trigger",
  kv: "data",
  log: "utility",
  loop: "logic",
  manual: "trigger",
  merge: "logic",
  object_storage: "data",
  schedule: "trigger",
  send_webhook: "integration",
  set: "data",
  transform: "data",
  wait: "logic",
};

export const categoryOfType = (type: string) => BUILTIN_CATEGORY[type] ?? "unknown";

const BY_CATEGORY: Record<string, string> = {
  trigger: "manual",
  logic: "condition",
  data: "set",
  integration: "http_request",
  ai: "ai.agent",
  utility: "log",
};

export function NodeIcon({ type, category }: { type: string; category: string }) {
  const paths = ICONS[type] ?? ICONS[BY_CATEGORY[category] ?? ""] ?? ["M5 5h14v14H5z"];
  return (
    <span className={`node-icon cat-${category}`} aria-hidden="true">
      <svg
        viewBox="0 0 24 24"
        width="16"
        height="16"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {paths.map((d) => (
          <path key={d} d={d} />
        ))}
      </svg>
    </span>
  );
}
