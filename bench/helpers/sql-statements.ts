// What the service asks of PostgreSQL per run, from PostgreSQL's own counters over the windows a
// benchmark measures: statements by normalised text (pg_stat_statements, which needs
// shared_preload_libraries: benchDatabase({ statementStats: true }) starts its server so), and
// the transactions that wrote (transaction ids assigned: each one's commit waits for a WAL flush).
// pg_stat_database's xact_commit is not used: a backend reports it up to 10 s late when it goes
// idle (PostgreSQL 15's pgstat), so a window's figure would take in its neighbour's.
import pg from "pg";
import { markdownTable } from "./markdown-table.js";

interface StatementUse {
  query: string;
  calls: number;
  rows: number;
  ms: number;
}

interface Reading {
  statements: Map<string, StatementUse>;
  /** The next transaction id to be assigned (server-wide). */
  nextXid: bigint;
}

export interface SqlUse {
  /** Statement use by normalised text, summed over the windows. */
  statements: Map<string, StatementUse>;
  /** Transaction ids assigned: transactions that wrote (or locked rows), committed or not. */
  writeTransactions: number;
}

/**
 * Counts the statements sent to `database` on the server of `adminUrl` between each begin() and
 * end(). `unavailable` says why statements cannot be counted (pg_stat_statements not loaded).
 */
export async function sqlMeter(adminUrl: string, database: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  let unavailable: string | undefined;
  try {
    // Nothing is created on a server that does not load it (BENCH_DATABASE_URL's, shared with n8n).
    const { rows } = await client.query<{ libraries: string }>(
      "SELECT current_setting('shared_preload_libraries') AS libraries",
    );
    if (!rows[0]!.libraries.split(",").some((library) => library.trim() === "pg_stat_statements")) {
      unavailable = "the server does not load pg_stat_statements (shared_preload_libraries)";
    } else {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    }
  } catch (error) {
    unavailable = `pg_stat_statements: ${(error as Error).message}`;
  }
  const used: SqlUse = { statements: new Map(), writeTransactions: 0 };
  let before: Reading | undefined;

  const read = async (): Promise<Reading> => {
    const { rows: xid } = await client.query<{ next: string }>(
      "SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next",
    );
    const statements = new Map<string, StatementUse>();
    if (!unavailable) {
      const { rows } = await client.query<{ id: string; query: string; calls: string; rows: string; ms: number }>(
        `SELECT concat_ws('/', userid, queryid, toplevel) AS id, query, calls, rows, total_exec_time AS ms
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
        [database],
      );
      for (const row of rows) {
        statements.set(row.id, { query: row.query, calls: Number(row.calls), rows: Number(row.rows), ms: row.ms });
      }
    }
    return { statements, nextXid: BigInt(xid[0]!.next) };
  };

  return {
    unavailable,
    async begin() {
      before = await read();
    },
    async end() {
      if (!before) return;
      const after = await read();
      for (const [id, use] of after.statements) addUse(used.statements, use, before.statements.get(id));
      used.writeTransactions += Number(after.nextXid - before.nextXid);
      before = undefined;
    },
    used: () => used,
    close: () => client.end(),
  };
}

/** Adds a statement's use since `earlier` to `total`, keyed by its normalised text. */
function addUse(total: Map<string, StatementUse>, use: StatementUse, earlier: StatementUse | undefined) {
  const calls = use.calls - (earlier?.calls ?? 0);
  if (calls === 0) return;
  // One row for a statement whatever the length of its IN lists.
  const query = use.query
    .replace(/\s+/g, " ")
    .replace(/IN \((\$\d+, ?)*\$\d+\)/g, "IN ($n, ...)")
    .trim();
  const sum = total.get(query) ?? { query, calls: 0, rows: 0, ms: 0 };
  sum.calls += calls;
  sum.rows += use.rows - (earlier?.rows ?? 0);
  sum.ms += use.ms - (earlier?.ms ?? 0);
  total.set(query, sum);
}

const QUERY_WIDTH = 110;

/** Per run: the statements in all (each one a round trip), then the `top` most sent, by text. */
export function sqlUseText(use: SqlUse, runs: number, { top = 15 } = {}): string {
  const statements = [...use.statements.values()].sort((a, b) => b.calls - a.calls);
  const calls = statements.reduce((sum, statement) => sum + statement.calls, 0);
  const serverMs = statements.reduce((sum, statement) => sum + statement.ms, 0);
  const blocks = statements.filter((statement) => /^(BEGIN|START TRANSACTION)\b/i.test(statement.query));
  const perRun = (value: number, digits = 2) => (value / runs).toFixed(digits);
  const summary =
    `${perRun(calls)} statements per run (${perRun(calls)} round trips: the driver sends one statement per ` +
    `round trip), ${perRun(blocks.reduce((sum, statement) => sum + statement.calls, 0))} BEGIN...COMMIT blocks, ` +
    `${perRun(use.writeTransactions)} transactions that wrote (committed with a WAL flush), ` +
    `${perRun(serverMs, 3)} ms of execution in PostgreSQL; over ${runs} runs`;
  const rows = statements.slice(0, top).map((statement) => [
    (statement.query.length > QUERY_WIDTH ? `${statement.query.slice(0, QUERY_WIDTH - 1)}…` : statement.query)
      // A bar (SQL's ||) would end the Markdown cell.
      .replaceAll("|", "\\|"),
    perRun(statement.calls),
    perRun(statement.rows),
    perRun(statement.ms, 3),
  ]);
  return `${summary}\n${markdownTable(["statement (normalised)", "calls/run", "rows/run", "exec ms/run"], rows)}`;
}
