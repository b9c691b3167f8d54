import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "../prisma/generated/client/client.js";

export type { PrismaClient } from "../prisma/generated/client/client.js";
export { Prisma };

/** One client per process, through the pg driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg(
    { connectionString: databaseUrl, max: options.maxConnections ?? 10 },
    { statementNameGenerator: preparedStatementName },
  );
  return new PrismaClient({ adapter });
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

/** A value for a nullable Json column: null and undefined become SQL NULL. */
export function jsonColumn(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** A value for a required Json column: null and undefined become JSON null. */
export function jsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null || value === undefined ? Prisma.JsonNull : (value as Prisma.InputJsonValue);
}
