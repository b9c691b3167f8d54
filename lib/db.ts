import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { Prisma, PrismaClient } from "../prisma/generated/client/client.js";

export type { PrismaClient } from "../prisma/generated/client/client.js";
export { Prisma };

/** The pg pool under each client made by createPrismaClient (see sqlQuery). */
const pools = new WeakMap<object, pg.Pool>();

/** One client per process, through the pg driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  // An idle connection that breaks (server restart) reports here; the pool replaces it.
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool, { statementNameGenerator: preparedStatementName, disposeExternalPool: true });
  // "minimal": Prisma's messages carry no source path and code frame of the calling line, which
  // would otherwise reach step errors and logs.
  const prisma = new PrismaClient({ adapter, errorFormat: "minimal" });
  pools.set(prisma, pool);
  return prisma;
}

/**
 * Runs a statement on the pool under `prisma`, past Prisma's query layer (which costs a step
 * write over half as much again; docs/engine.md, "Figures"): for the few statements every run
 * writes (steps, run start and end) and every request reads (session). Same connections, same
 * prepared statements. Returns the rows with pg's types: int8 (count(*)) as a string, jsonb
 * parsed, timestamps as Dates. Through Prisma where the client is not one of
 * createPrismaClient's (a transaction's client).
 */
export async function sqlQuery<Row = Record<string, unknown>>(prisma: object, query: Prisma.Sql): Promise<Row[]> {
  const pool = pools.get(prisma);
  if (!pool) return (prisma as PrismaClient).$queryRaw<Row[]>(query);
  const text = query.text;
  const result = await pool.query({ name: preparedStatementName({ sql: text }), text, values: query.values });
  return result.rows as Row[];
}

// Named statements are parsed once per connection and then reused, plan included once PostgreSQL
// settles on a generic one. Bounded, so that queries varying in shape (IN lists) cannot grow it.
const MAX_PREPARED_STATEMENTS = 500;
const statementNames = new Map<string, string>();
function preparedStatementName(query: { sql: string }): string {
  let name = statementNames.get(query.sql);
  if (name === undefined && statementNames.size < MAX_PREPARED_STATEMENTS) {
    name = `svc_${statementNames.size}`;
    statementNames.set(query.sql, name);
  }
  // pg runs a query with an empty name as an unnamed, unprepared statement.
  return name ?? "";
}

/** `jsonb_build_object` of an object whose values are SQL expressions (keys in its order). */
export function jsonObjectSql(fields: Record<string, Prisma.Sql>): Prisma.Sql {
  return Prisma.sql`jsonb_build_object(${Prisma.join(
    Object.entries(fields).map(([key, value]) => Prisma.sql`${key}::text, ${value}`),
  )})`;
}

/** A value for a nullable Json column: null and undefined become SQL NULL. */
export function jsonColumn(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** A value for a required Json column: null and undefined become JSON null. */
export function jsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null || value === undefined ? Prisma.JsonNull : (value as Prisma.InputJsonValue);
}

const PRISMA_ERRORS = [
  Prisma.PrismaClientKnownRequestError,
  Prisma.PrismaClientUnknownRequestError,
  Prisma.PrismaClientValidationError,
  Prisma.PrismaClientRustPanicError,
  Prisma.PrismaClientInitializationError,
];

/**
 * What a Prisma error says, for people: its reason without Prisma's "Invalid `prisma.x.create()`
 * invocation" preamble, source path or code frame; undefined for any other error.
 */
export function databaseErrorReason(error: unknown): string | undefined {
  if (!PRISMA_ERRORS.some((type) => error instanceof type)) return undefined;
  const lines = (error as Error).message
    .split("\n")
    .map((line) => line.trim())
    // The preamble, the calling file's path and the code frame ("→ 198   await prisma…", "197 …").
    .filter((line) => line && !/^Invalid `.*` invocation/.test(line) && !/^(→\s*)?\d+\s/.test(line));
  const reason = lines
    .join(" ")
    .replace(/\S*\/\S+\.[cm]?[jt]s:\d+(:\d+)?/g, "")
    .trim();
  if (/recursion limit exceeded/i.test(reason)) return "the value is nested too deeply to be stored";
  const code = (error as { code?: unknown }).code;
  return `${reason || "the database refused the operation"}${typeof code === "string" ? ` (${code})` : ""}`;
}
