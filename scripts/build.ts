// npm run build: the JavaScript production runs (npm run start:api:prod / start:worker:prod, the
// Docker image), in dist/ (or --out-dir): the TypeScript compiled by tsc file for file, so every
// path a module finds beside itself (import.meta.url) holds; the .cjs modules loaded by path; and
// the workflow bundle, made now rather than by every worker at its start.
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundleWorkflowCode } from "@temporalio/worker";
import { preloadedWorkflowModules } from "../core/engine/workflow-bundle.js";
import { projectRoot } from "./infra/paths.js";
import { run } from "./infra/process.js";

/** Folders compiled (tsconfig.build.json); their .cjs files are copied beside the output. */
const SOURCE_DIRS = ["api", "core", "worker", "lib", "scripts", "prisma"];

const quietBundler = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  log: () => undefined,
  warn: (message: string) => process.stderr.write(`bundler: ${message}\n`),
  error: (message: string) => process.stderr.write(`bundler: ${message}\n`),
};

function copyCommonJsModules(outDir: string): number {
  let copied = 0;
  for (const dir of SOURCE_DIRS) {
    const files = readdirSync(path.join(projectRoot, dir), { recursive: true, encoding: "utf8" });
    for (const file of files.filter((name) => name.endsWith(".cjs") && !name.includes("node_modules"))) {
      const target = path.join(outDir, dir, file);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(projectRoot, dir, file), target);
      copied += 1;
    }
  }
  return copied;
}

/** The workflows as the worker runs them, from the compiled files (worker/worker.ts loads it). */
async function bundleWorkflows(outDir: string): Promise<string> {
  const workflowsPath = path.join(outDir, "worker", "workflows", "index.js");
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: preloadedWorkflowModules(workflowsPath),
    failureConverterPath: path.join(outDir, "core", "engine", "failure-converter.cjs"),
    logger: quietBundler,
  });
  const bundlePath = path.join(outDir, "worker", "workflows.bundle.js");
  writeFileSync(bundlePath, code);
  return bundlePath;
}

const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

async function build(outDir: string): Promise<void> {
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  await run(process.execPath, [tsc, "-p", path.join(projectRoot, "tsconfig.build.json"), "--outDir", outDir], {
    cwd: projectRoot,
    timeoutMs: 10 * 60_000,
  });
  const compiled = performance.now();
  const copied = copyCommonJsModules(outDir);
  const bundlePath = await bundleWorkflows(outDir);
  process.stdout.write(
    `Built ${path.relative(projectRoot, outDir) || "."}: tsc ${elapsed(started)}, ${copied} .cjs modules, ` +
      `workflow bundle ${path.relative(outDir, bundlePath)} ${elapsed(compiled)}\n`,
  );
}

const { values } = parseArgs({ options: { "out-dir": { type: "string", default: "dist" } } });
await build(path.resolve(projectRoot, values["out-dir"]!)).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
