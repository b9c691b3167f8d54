// A migrated PostgreSQL database for a benchmark: BENCH_DATABASE_URL's server (a fresh database on
// it), or a private cluster from the machine's PostgreSQL binaries in a temporary directory (with
// statementStats, its server loads pg_stat_statements: bench/helpers/sql-statements.ts).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropDatabase, ensureDatabase, startEmbeddedPostgres } from "../../scripts/infra/postgres.js";
import { applyMigrations } from "../../scripts/infra/prisma-cli.js";

export interface BenchDatabase {
  url: string;
  /** The database's name, and a URL of its server's `postgres` database (or BENCH_DATABASE_URL). */
  database: string;
  adminUrl: string;
  /** The postmaster of the server the benchmark started (none on BENCH_DATABASE_URL's). */
  postmasterPid?: number;
  close: () => Promise<void>;
}

export async function benchDatabase(options: { statementStats?: boolean } = {}): Promise<BenchDatabase> {
  const database = `svc_bench_${Date.now().toString(36)}`;
  if (process.env.BENCH_DATABASE_URL) {
    const admin = process.env.BENCH_DATABASE_URL;
    await ensureDatabase(admin, database);
    const url = new URL(admin);
    url.pathname = `/${database}`;
    await applyMigrations(url.toString());
    return { url: url.toString(), database, adminUrl: admin, close: () => dropDatabase(admin, database) };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
  chmodSync(dir, 0o711);
  const postgres = await startEmbeddedPostgres({
    dir: path.join(dir, "postgres"),
    database,
    ...(options.statementStats ? { settings: { shared_preload_libraries: "pg_stat_statements" } } : {}),
  });
  await applyMigrations(postgres.url);
  const adminUrl = new URL(postgres.url);
  adminUrl.pathname = "/postgres";
  const postmasterPid = Number(
    readFileSync(path.join(dir, "postgres", "pgdata", "postmaster.pid"), "utf8").split("\n")[0],
  );
  return {
    url: postgres.url,
    database,
    adminUrl: adminUrl.toString(),
    postmasterPid,
    close: async () => {
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
