// npm run db:diff -- <name>: writes prisma/migrations/<timestamp>_<name>/ with the SQL that takes
// the database from the latest migration's schema snapshot to prisma/schema.prisma.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadDotEnv } from "../lib/config.js";
import { withServiceDatabase } from "./infra/local-service.js";
import { latestSchemaSnapshot, migrationsDir, schemaPath } from "./infra/migrations.js";
import { runPrismaCli } from "./infra/prisma-cli.js";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write("usage: npm run db:diff -- <name in snake_case>\n");
  process.exit(2);
}

loadDotEnv();
const snapshot = latestSchemaSnapshot();
const from = snapshot ? ["--from-schema-datamodel", snapshot] : ["--from-empty"];
// The CLI reaches the database through the driver adapter even for a datamodel-only diff.
const output = await withServiceDatabase((databaseUrl) =>
  runPrismaCli(["migrate", "diff", ...from, "--to-schema-datamodel", schemaPath, "--script"], databaseUrl),
);
const sql = output.slice(output.search(/^--/m));
if (sql.includes("This is an empty migration")) {
  process.stdout.write("prisma/schema.prisma has no changes since the latest migration\n");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join(migrationsDir, `${stamp}_${name}`);
mkdirSync(dir);
writeFileSync(path.join(dir, "migration.sql"), sql);
copyFileSync(schemaPath, path.join(dir, "schema.prisma"));
process.stdout.write(`wrote ${path.relative(process.cwd(), dir)}/migration.sql\n`);
