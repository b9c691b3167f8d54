// npm run user:create -- --email E --password P --name N --workspace W
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { newUserSchema } from "../core/users/users.schema.js";
import { DomainError } from "../core/errors.js";
import { loadDotEnv, parseConfig, passwordConfigSchema } from "../lib/config.js";
import { createPrismaClient } from "../lib/db.js";
import { withServiceDatabase } from "./infra/local-service.js";

const USAGE = "usage: npm run user:create -- --email E --password P --name N --workspace W";

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

loadDotEnv();
let iterations: number;
try {
  iterations = parseConfig(process.env, passwordConfigSchema).PASSWORD_HASH_ITERATIONS;
} catch (error) {
  fail((error as Error).message);
}
let values;
try {
  ({ values } = parseArgs({
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      workspace: { type: "string" },
    },
    strict: true,
  }));
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}

const parsed = newUserSchema.safeParse(values);
if (!parsed.success) {
  const problems = parsed.error.issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`);
  fail(`${problems.join("; ")}\n${USAGE}`, 2);
}

try {
  const created = await withServiceDatabase(async (databaseUrl) => {
    const prisma = createPrismaClient(databaseUrl, { maxConnections: 2 });
    try {
      return await createUserWithWorkspace(prisma, parsed.data, { iterations });
    } finally {
      await prisma.$disconnect();
    }
  });
  process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
} catch (error) {
  if (error instanceof DomainError || error instanceof ZodError) fail(error.message);
  throw error;
}
