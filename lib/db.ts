import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../prisma/generated/client/client.js";

export type { PrismaClient } from "../prisma/generated/client/client.js";

/** One client per process, through the pg driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  return new PrismaClient({ adapter });
}
