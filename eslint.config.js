import path from "node:path";
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

const nodeBuiltins = [
  "node:*",
  "fs",
  "path",
  "os",
  "child_process",
  "crypto",
  "http",
  "https",
  "net",
  "dns",
  "process",
];
/** What does I/O (lib/ but its pure durations, the API, the database): nodes import none of it. */
const NO_IO = ["**/lib/*", "!**/lib/duration.js", "**/api/**", "@prisma/*", "pg", "**/prisma/**"];
/** The two lists above as patterns of `import("…")`, which no-restricted-imports does not see. */
const NODE_BUILTINS_DYNAMIC = `^(node:.*|${nodeBuiltins.filter((name) => name !== "node:*").join("|")})$`;
const NO_IO_DYNAMIC = "^((\\.\\./)+(lib/(?!duration\\.js$)|api/|prisma/)|@prisma/|pg$)";

// The rooms and the way the arrows go (README: "Layout"): lib/ <- core/ <- worker/, api/ and
// scripts/. api/server.ts, the API process's composition root, is the one file of api/ that
// imports worker/ (the in-process worker of API_WORKER). scripts/ starts the processes by their
// paths and imports none of them; of api/ it names only where the dashboard's build goes
// (api/http/dashboard-dist.ts) and the OpenAPI document the dashboard's types are generated from
// (api/openapi-document.ts). Tests may import across rooms.
const room = (names, { except = [] } = {}) => {
  const allowed = except.length ? `(?!${except.map((path) => `${path.replaceAll(".", "\\.")}$`).join("|")})` : "";
  return {
    regex: `^(\\.\\./)+${allowed}(${names.join("|")})(/|$)`,
    message: `This room does not import from ${names.join(", ")}${except.length ? ` but ${except.join(", ")}` : ""} (README: "Layout").`,
  };
};
const ROOM_RULES = {
  lib: room(["core", "worker", "api", "scripts", "bench", "test"]),
  core: room(["worker", "api", "scripts", "bench", "test"]),
  worker: room(["api", "scripts", "bench", "test"]),
  api: room(["worker", "scripts", "bench", "test"]),
  scripts: room(["api", "worker", "bench", "test"], {
    except: ["api/http/dashboard-dist.js", "api/openapi-document.js"],
  }),
};
// The dashboard speaks to the API over HTTP only: nothing from outside web/src in the browser
// bundle (no server code), at each depth of its folders; except the template engine, pure code the
// editor's preview must share with the worker (no second implementation).
const leavesWebSrc = (depth) => ({
  regex: `^(?!(\\.\\./)+core/flows/template$)(\\.\\./){${depth},}`,
  message: 'The dashboard imports nothing from outside web/src: it speaks to the API over HTTP (README: "Layout").',
});
const restrictImports = (...patterns) => ["error", { patterns }];
// Pages sit on top of the dashboard: each is a route of app.tsx, a `*-page` module in its feature's
// folder (web/src/runs/runs-page.tsx). Nothing else imports one, not even from its own folder: a
// page imports what it shows, never the other way round; nor a folder of pages, were one to return.
const noPageImports = {
  regex: "^\\.{1,2}/([^/]+/)*([^/]+-page|pages)(\\.[jt]sx?)?(/|$)",
  message:
    "Only app.tsx imports pages (a *-page module, a route): move what is shared out of the page (web/src/ui/ or the feature's folder).",
};

// api/ speaks HTTP: its routers call core's services, and only its composition root (app.ts,
// deps.ts, server.ts) holds the database and Temporal clients it hands them. Nothing else in api/
// imports the database (lib/db, Prisma) or the Temporal client, not even as a type.
const API_ROOT = ["api/app.ts", "api/deps.ts", "api/server.ts"];
const API_DATA_ACCESS = [
  ["^(\\.\\./)+lib/db\\.js$", "the database client (lib/db)"],
  ["^(\\.\\./)+prisma/", "Prisma's generated client"],
  ["^@prisma/", "Prisma"],
  ["^@temporalio/client(/|$)", "the Temporal client"],
].map(([regex, what]) => ({
  regex,
  message: `api/ speaks HTTP: ${what} only in its composition root (${API_ROOT.join(", ")}); queries and workflow starts are core/'s (README: "Layout").`,
}));

// Inside core/, its rooms stand on floors, and a room imports only from the floors below its own
// (docs/engine.md, "core/ inside"): the model providers, the sandbox and readiness on the ground,
// the contracts, the domain's errors and rate limits, then the node types and workspaces,
// credentials, stores, outgoing webhooks and sessions (logins), flows, runs and hooks, and on top
// the services that start runs of their own (agents, waits) and the dashboard's figures, read
// over all of them.
const CORE_FLOORS = [
  ["ai", "sandbox", "health"],
  ["contracts", "errors.ts", "rate-limiter.ts", "users"],
  ["engine", "nodes", "workspaces", "tokens"],
  ["credentials", "stores", "custom-nodes.ts", "webhooks", "usage", "sessions", "maintenance.ts"],
  ["flows"],
  ["runs", "hooks"],
  ["agents", "waits", "metrics", "operations", "mcp"],
];
const coreRoomFiles = (name) => (name.endsWith(".ts") ? [`core/${name}`] : [`core/${name}/**/*.{ts,tsx}`]);
/** What a core room may not import: the rooms on the floors above its own (none on top). */
const coreFloorRules = (name) => {
  const above = CORE_FLOORS.slice(CORE_FLOORS.findIndex((floor) => floor.includes(name)) + 1).flat();
  if (above.length === 0) return [];
  const paths = above.map((room) => (room.endsWith(".ts") ? room.replace(/\.ts$/, "\\.js$") : `${room}(/|$)`));
  // A file room stands in core/ itself, where the rooms are its siblings: "./runs/…".
  const up = name.endsWith(".ts") ? "(\\./|(\\.\\./)+)" : "(\\.\\./)+";
  return [
    {
      regex: `^${up}(${paths.join("|")})`,
      message: `core/${name} stands below ${above.join(", ")}: it imports only from the floors under it (docs/engine.md, "core/ inside").`,
    },
  ];
};
// Inside a core room its sub-rooms may stand on floors of their own, on the same terms: core/runs/
// is cut by job, its records at the bottom (rows, steps, items, payloads), then reading them, then
// starting runs, then cancelling them; its services (core/runs/*.ts) over all of them.
const SUB_FLOORS = { runs: [["records"], ["reads"], ["start"], ["cancel"]] };
/** What a sub-room of `room` may not import: the sub-rooms above its own, and its room's services. */
const subFloorRules = (room, sub) => {
  const floors = SUB_FLOORS[room];
  const above = floors.slice(floors.findIndex((floor) => floor.includes(sub)) + 1).flat();
  return [
    {
      regex: `^\\.\\./(${[...above.map((name) => `${name}(/|$)`), "[^./][^/]*\\.js$"].join("|")})`,
      message: `core/${room}/${sub} stands below ${[...above, `core/${room}/*.ts`].join(", ")}: it imports only from the sub-rooms under it (docs/engine.md, "core/ inside").`,
    },
  ];
};
/** The files of core room `name` with the rules they import by: its floor's, and its sub-rooms' own. */
const coreRoomRules = (name) => {
  const own = (files, ...patterns) => ({ files, patterns: [ROOM_RULES.core, ...coreFloorRules(name), ...patterns] });
  if (!SUB_FLOORS[name]) return [own(coreRoomFiles(name))];
  return [
    own([`core/${name}/*.ts`]),
    ...SUB_FLOORS[name].flat().map((sub) => own([`core/${name}/${sub}/**/*.ts`], ...subFloorRules(name, sub))),
  ];
};
/** The same rules for `import("…")` with a literal path, which no-restricted-imports does not see. */
const restrictDynamicImports = (...patterns) => [
  "error",
  ...patterns.map(({ regex, message }) => ({
    selector: `ImportExpression[source.value=/${regex.replaceAll("/", "\\/")}/]`,
    message,
  })),
];

// Workflow code is replayed by Temporal and must be deterministic. Rather than a list of what it
// may not import (which a module it imports could import in its place), a list of what it may:
// the workflows, the SDK's workflow API, and the pure modules they share with the rest (these are
// held to the same list, so that whatever a workflow reaches, at any depth, is on it). Anything
// else (activities, I/O, Node built-ins, the database) only as types, which leave no code behind.
const WORKFLOW_MODULES = [
  "worker/workflows/",
  "core/contracts/agent-run.ts",
  "core/contracts/concurrency-gate.ts",
  "core/contracts/operator-text.ts",
  "core/contracts/run-flow.ts",
  "core/contracts/run-priority.ts",
  "core/contracts/waits.ts",
  "core/flows/concurrency-key.ts",
  "core/flows/graph.ts",
  "core/flows/json-size.ts",
  "core/flows/node-input.ts",
  "core/flows/template.ts",
];
const WORKFLOW_PACKAGES = /^@temporalio\/(workflow|common)(\/|$)/;
const workflowModuleFiles = WORKFLOW_MODULES.map((name) => (name.endsWith("/") ? `${name}**/*.ts` : name));
/** The project file an import names, from the root (`.js` as the `.ts` it is), or null for a package. */
const importedFile = (filename, source) =>
  source.startsWith(".")
    ? path
        .relative(import.meta.dirname, path.resolve(path.dirname(filename), source))
        .split(path.sep)
        .join("/")
        .replace(/\.js$/, ".ts")
    : null;
const workflowMayImport = (filename, source) => {
  const file = importedFile(filename, source);
  if (file === null) return WORKFLOW_PACKAGES.test(source);
  return WORKFLOW_MODULES.some((name) => (name.endsWith("/") ? file.startsWith(name) : file === name));
};
const workflowImportsRule = {
  meta: {
    type: "problem",
    schema: [],
    messages: {
      outside:
        "Workflow code imports values only from the workflows, @temporalio/workflow, @temporalio/common and the pure modules of WORKFLOW_MODULES in eslint.config.js (which are held to the same list); '{{source}}' only as a type (activities are called through proxyActivities).",
    },
  },
  create(context) {
    const check = (node, source, typeOnly) => {
      if (typeOnly || typeof source !== "string" || workflowMayImport(context.filename, source)) return;
      context.report({ node, messageId: "outside", data: { source } });
    };
    const typeOnlyImport = (node) =>
      node.importKind === "type" ||
      (node.specifiers.length > 0 && node.specifiers.every((specifier) => specifier.importKind === "type"));
    return {
      ImportDeclaration: (node) => check(node, node.source.value, typeOnlyImport(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, node.exportKind === "type"),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === "type"),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value, false),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === "TSExternalModuleReference" &&
        check(node, node.moduleReference.expression.value, node.importKind === "type"),
    };
  },
};

export default tseslint.config(
  { ignores: ["node_modules", ".data", ".tools", ".scratch", "dist", "prisma/generated", "web/dist", "web/.dist-*"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Type-aware: a promise nobody awaits or catches loses its error (and, in a workflow, its order).
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
  {
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js", ".cjs", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createNodeResolver({ extensionAlias: { ".js": [".ts", ".js"] } })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  ...Object.entries(ROOM_RULES).map(([name, pattern]) => ({
    files: [`${name}/**/*.{ts,tsx}`],
    ignores: ["**/*.test.ts", "**/*.test.tsx", "api/server.ts"],
    rules: {
      "no-restricted-imports": restrictImports(pattern),
      "no-restricted-syntax": restrictDynamicImports(pattern),
    },
  })),
  {
    files: ["api/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", ...API_ROOT],
    rules: {
      "no-restricted-imports": restrictImports(ROOM_RULES.api, ...API_DATA_ACCESS),
      "no-restricted-syntax": restrictDynamicImports(ROOM_RULES.api, ...API_DATA_ACCESS),
    },
  },
  ...CORE_FLOORS.flat()
    .filter((name) => name !== "nodes")
    .flatMap(coreRoomRules)
    .map(({ files, patterns }) => ({
      files,
      ignores: ["**/*.test.ts"],
      rules: {
        "no-restricted-imports": restrictImports(...patterns),
        "no-restricted-syntax": restrictDynamicImports(...patterns),
      },
    })),
  ...[1, 2, 3].map((depth) => ({
    files: [`web/src/${"*/".repeat(depth - 1)}*.{ts,tsx}`],
    rules: {
      "no-restricted-imports": restrictImports(leavesWebSrc(depth), noPageImports),
      "no-restricted-syntax": restrictDynamicImports(leavesWebSrc(depth), noPageImports),
    },
  })),
  {
    // The router: the one file that imports the pages.
    files: ["web/src/app.tsx"],
    rules: {
      "no-restricted-imports": restrictImports(leavesWebSrc(1)),
      "no-restricted-syntax": restrictDynamicImports(leavesWebSrc(1)),
    },
  },
  {
    // The dashboard runs in the browser.
    files: ["web/src/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Nodes keep the spec's edge-worker contract: web-standard APIs and what `env` hands them;
    // no Node built-ins, no process, no database client, no API code. A control node's start
    // (the children of a loop or a flow.call, an agent run, a wait) is engine code the node
    // activity runs before the workflow waits, not node code: it lives with runs, agents and waits.
    files: ["core/nodes/**/*.ts", "examples/custom-nodes/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrictImports(
        ROOM_RULES.core,
        ...coreFloorRules("nodes"),
        { group: nodeBuiltins, message: "Nodes use web-standard APIs only: no Node built-ins." },
        {
          group: NO_IO,
          message: "Nodes reach data through env.",
        },
      ),
      "no-restricted-syntax": restrictDynamicImports(
        ROOM_RULES.core,
        ...coreFloorRules("nodes"),
        { regex: NODE_BUILTINS_DYNAMIC, message: "Nodes use web-standard APIs only: no Node built-ins." },
        { regex: NO_IO_DYNAMIC, message: "Nodes reach data through env." },
      ),
      "no-restricted-globals": [
        "error",
        { name: "process", message: "Nodes have no process environment." },
        { name: "require", message: "Nodes use web-standard APIs only." },
        { name: "Buffer", message: "Use Uint8Array and TextEncoder (web-standard)." },
      ],
    },
  },
  {
    // Workflow code (WORKFLOW_MODULES above): the list holds it to what Temporal can replay.
    files: workflowModuleFiles,
    ignores: ["**/*.test.ts"],
    plugins: { workflow: { rules: { imports: workflowImportsRule } } },
    rules: { "workflow/imports": "error" },
  },
);
