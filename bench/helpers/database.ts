// A migrated PostgreSQL database for a benchmark: BENCH_DATABASE_URL's server (a fresh database on
// it), or a private cluster from the machine's PostgreSQL binaries in a temporary directory.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropDatabase, ensureDatabase, startEmbeddedPostgres } from "../../scripts/infra/postgres.js";
import { applyMigrations } from "../../scripts/infra/prisma-cli.js";

export async function benchDatabase(): Promise<{ url: string; close: () => Promise<void> }> {
  const database = `svc_bench_${Date.now().toString(36)}`;
  if (process.env.BENCH_DATABASE_URL) {
    const admin = process.env.BENCH_DATABASE_URL;
    await ensureDatabase(admin, database);
    const url = new URL(admin);
    url.pathname = `/${database}`;
    await applyMigrations(url.toString());
    return { url: url.toString(), close: () => dropDatabase(admin, database) };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
  chmodSync(dir, 0o711);
  const postgres = await startEmbeddedPostgres({ dir: path.join(dir, "postgres"), database });
  await applyMigrations(postgres.url);
  return {
    url: postgres.url,
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
