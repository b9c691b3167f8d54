// Runs the Prisma CLI offline: the JS schema engine (prisma.config.ts) does the work, and the
// engine variables point at a placeholder so the CLI does not try to download native engines.
import { spawnSync } from "node:child_process";
import { prismaCliArgs, prismaCliEnv } from "./infra/prisma-cli.js";

const result = spawnSync(process.execPath, prismaCliArgs(process.argv.slice(2)), {
  stdio: "inherit",
  env: prismaCliEnv(process.env),
});
process.exit(result.status ?? 1);
