import js from "@eslint/js";
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

export default tseslint.config(
  { ignores: ["node_modules", ".data", ".tools", ".scratch", "prisma/generated", "web/dist", "web/.dist-*"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The dashboard runs in the browser.
    files: ["web/src/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Nodes keep the spec's edge-worker contract: web-standard APIs and what `env` hands them;
    // no Node built-ins, no process, no database client, no API code.
    files: ["worker/nodes/**/*.ts", "examples/custom-nodes/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: nodeBuiltins, message: "Nodes use web-standard APIs only: no Node built-ins." },
            {
              group: ["**/lib/*", "**/api/**", "@prisma/*", "pg", "**/prisma/**"],
              message: "Nodes reach data through env.",
            },
          ],
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "process", message: "Nodes have no process environment." },
        { name: "require", message: "Nodes use web-standard APIs only." },
        { name: "Buffer", message: "Use Uint8Array and TextEncoder (web-standard)." },
      ],
    },
  },
  {
    // Workflow code is replayed by Temporal and must be deterministic: no I/O, no Node built-ins,
    // no database, no API code. Activities are imported as types only.
    files: ["worker/workflows/**/*.ts"],
    ignores: ["worker/workflows/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: nodeBuiltins, message: "Workflows must be deterministic: no Node built-ins." },
            { group: ["**/lib/*", "**/api/**", "@prisma/*", "pg", "**/prisma/**"], message: "Workflows do no I/O." },
            {
              group: ["../activities/*", "../activities"],
              allowTypeImports: true,
              message: "Import activities as types only and call them through proxyActivities.",
            },
          ],
        },
      ],
    },
  },
);
