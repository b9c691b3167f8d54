// What `npm start` brought up, recorded in the data directory so that command-line tools
// (user:create, db:migrate) reach the same embedded database without configuration.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import pg from "pg";
import { dataDir } from "./paths.js";
import { applyMigrations } from "./prisma-cli.js";
import { startEmbeddedPostgres } from "./postgres.js";

export const EMBEDDED_DATABASE = "svc";

export interface ServiceFile {
  pid: number;
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
}

const serviceFilePath = () => dataDir("service.json");

export function writeServiceFile(service: ServiceFile): void {
  mkdirSync(dataDir(), { recursive: true });
  writeFileSync(serviceFilePath(), JSON.stringify(service, null, 2), { mode: 0o600 });
}

export function removeServiceFile(): void {
  rmSync(serviceFilePath(), { force: true });
}

export function readServiceFile(): ServiceFile | undefined {
  if (!existsSync(serviceFilePath())) return undefined;
  return JSON.parse(readFileSync(serviceFilePath(), "utf8")) as ServiceFile;
}

async function answers(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs `task` against the service's database: DATABASE_URL when set, else the embedded database of
 * a running `npm start`, else the embedded cluster started just for this task (and migrated).
 */
export async function withServiceDatabase<T>(task: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return task(process.env.DATABASE_URL);
  const running = readServiceFile();
  if (running && (await answers(running.databaseUrl))) return task(running.databaseUrl);
  const embedded = await startEmbeddedPostgres({ dir: dataDir("postgres"), database: EMBEDDED_DATABASE });
  try {
    await applyMigrations(embedded.url);
    return await task(embedded.url);
  } finally {
    await embedded.stop();
  }
}
