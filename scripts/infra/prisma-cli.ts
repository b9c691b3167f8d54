import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { projectRoot } from "./paths.js";

const require = createRequire(import.meta.url);

export function prismaCliPath(): string {
  return require.resolve("prisma/build/index.js");
}

/** Node arguments that run the Prisma CLI with our preload (see prisma-cli-preload.cjs). */
export function prismaCliArgs(args: string[]): string[] {
  return ["--require", require.resolve("./prisma-cli-preload.cjs"), prismaCliPath(), ...args];
}

/** Environment for the Prisma CLI: engine variables point at an empty placeholder file. */
export function prismaCliEnv(base: NodeJS.ProcessEnv, databaseUrl?: string): NodeJS.ProcessEnv {
  const placeholder = path.join(projectRoot, ".tools", "prisma-engine-placeholder");
  if (!existsSync(placeholder)) {
    mkdirSync(path.dirname(placeholder), { recursive: true });
    writeFileSync(placeholder, "");
  }
  return {
    ...base,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    PRISMA_QUERY_ENGINE_LIBRARY: base.PRISMA_QUERY_ENGINE_LIBRARY ?? placeholder,
    PRISMA_SCHEMA_ENGINE_BINARY: base.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
}

/** Runs a Prisma CLI command to completion; rejects with its output when it fails. */
export function runPrismaCli(args: string[], databaseUrl?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, prismaCliArgs(args), {
      cwd: projectRoot,
      env: prismaCliEnv(process.env, databaseUrl),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`prisma ${args.join(" ")} failed (exit ${code}):\n${output}`));
    });
  });
}

export function applyMigrations(databaseUrl: string): Promise<string> {
  return runPrismaCli(["migrate", "deploy"], databaseUrl);
}
