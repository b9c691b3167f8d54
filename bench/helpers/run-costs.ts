// A benchmark's meters of what a run costs the service, by column (a flow shape, a load): the
// API process's CPU by part (cpu-breakdown.ts) and the statements PostgreSQL ran (sql-statements.ts),
// over the windows between each column's begin() and end(). The SQL is read while the service
// runs; the CPU split once its processes have stopped and written their profiles.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  breakdownMeter,
  breakdownTable,
  perRequestMs,
  readBreakdown,
  topText,
  type BreakdownMeter,
} from "./cpu-breakdown.js";
import type { BenchDatabase } from "./database.js";
import { sqlMeter, sqlUseText } from "./sql-statements.js";

/** `profiled`: the API runs under V8's sampling profiler, and its threads' CPU is split by code; `threads`: by thread only. */
export type CostsMode = "off" | "threads" | "profiled";

/** The command-line options of a benchmark that measures run costs (parseArgs). */
export const COSTS_OPTIONS = {
  "no-costs": { type: "boolean", default: false },
  "no-profiler": { type: "boolean", default: false },
} as const;

export const costsMode = (values: { "no-costs"?: boolean; "no-profiler"?: boolean }): CostsMode =>
  values["no-costs"] ? "off" : values["no-profiler"] ? "threads" : "profiled";

/** The line above the cost tables: what was measured how. */
export const costsHeading = (mode: CostsMode, window: string) =>
  `\nThe API process's CPU by part and the SQL per run, ${window}` +
  (mode === "profiled"
    ? " (the API ran under V8's sampling profiler, at a cost the table shows in part; --no-profiler: by thread only, --no-costs: neither):"
    : " (by thread: --no-profiler):");

/** Where the processes write their profiles and thread ids: BENCH_CPU_PROFILE's folder (kept), else a scratch one. */
export function runCostsDir(): { dir: string; remove: () => void } {
  if (process.env.BENCH_CPU_PROFILE) return { dir: path.resolve(process.env.BENCH_CPU_PROFILE), remove: () => {} };
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-profiles-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Column {
  title: string;
  runs: number;
  cpu: BreakdownMeter;
  sql: Awaited<ReturnType<typeof sqlMeter>>;
}

export function runCosts(source: { apiPid: number; dir: string; db: BenchDatabase }) {
  const columns: Column[] = [];
  return {
    /** A column's meters; `end(runs)` adds the runs answered in the window just ended. */
    async column(title: string) {
      const column: Column = {
        title,
        runs: 0,
        cpu: breakdownMeter(source.apiPid),
        sql: await sqlMeter(source.db.adminUrl, source.db.database),
      };
      columns.push(column);
      return {
        async begin() {
          await column.sql.begin();
          column.cpu.begin();
        },
        async end(runs: number) {
          column.cpu.end();
          await column.sql.end();
          column.runs += runs;
        },
      };
    },
    /** Statements per run by column; call it while the database runs. */
    async sqlText(): Promise<string> {
      const texts: string[] = [];
      for (const { title, runs, sql } of columns) {
        const written = (sql.used().writeTransactions / runs).toFixed(2);
        texts.push(
          sql.unavailable
            ? `SQL per run, ${title}: ${written} transactions that wrote; statements not counted (${sql.unavailable})`
            : `SQL per run, ${title}: ${sqlUseText(sql.used(), runs)}`,
        );
        await sql.close();
      }
      return texts.join("\n\n");
    },
    /** The API's CPU per run by part; call it once the service's processes have stopped. */
    cpuText(): string {
      const read = columns.map(({ title, runs, cpu }) => ({
        title,
        requests: runs,
        breakdown: readBreakdown(cpu, { pid: source.apiPid, dir: source.dir }),
      }));
      const details = read.flatMap(({ title, requests, breakdown }) => [
        ...[...breakdown.details]
          .filter(([, seconds]) => seconds.size > 0)
          .map(([view, seconds]) => `  ${title}, ${view}: ${topText(seconds, requests)}`),
        ...[...breakdown.sampled].map(
          ([thread, { cpu, busy }]) =>
            `  ${title}, ${thread}: ${perRequestMs(cpu, requests)} ms of CPU per request, busy ${perRequestMs(busy, requests)} ms by its samples`,
        ),
      ]);
      return [breakdownTable(read), ...details].join("\n");
    },
  };
}
