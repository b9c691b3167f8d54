import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./paths.js";

export const schemaPath = path.join(projectRoot, "prisma", "schema.prisma");
export const migrationsDir = path.join(projectRoot, "prisma", "migrations");

/**
 * Every migration folder keeps a snapshot of the schema it produces (`schema.prisma`), so the
 * next migration is the diff from that snapshot to the current schema: no shadow database needed.
 */
export function latestSchemaSnapshot(): string | undefined {
  const names = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const latest = names.at(-1);
  if (!latest) return undefined;
  const snapshot = path.join(migrationsDir, latest, "schema.prisma");
  if (!existsSync(snapshot)) throw new Error(`Migration ${latest} has no schema.prisma snapshot`);
  return snapshot;
}
