// npm run db:migrate: applies pending migrations to DATABASE_URL, or to the embedded database.
import { loadDotEnv } from "../lib/config.js";
import { withServiceDatabase } from "./infra/local-service.js";
import { applyMigrations } from "./infra/prisma-cli.js";

loadDotEnv();
const output = await withServiceDatabase((databaseUrl) => applyMigrations(databaseUrl));
process.stdout.write(
  output
    .split("\n")
    .filter((line) => /migration|applied|pending/i.test(line))
    .join("\n") + "\n",
);
