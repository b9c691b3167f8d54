// Seals the run payloads stored in PostgreSQL again under the current key of SVC_ENCRYPTION_KEY:
// those under an older key, and those stored plain (before payloads were sealed, or by a process
// without a key). Part of `npm run credentials:reencrypt` (README: "Data at rest"). Each row is
// updated only if its value is still the one read, so a run writing meanwhile wins.
import { SEALED_FORMAT, SEALED_MARKER, sealedTextPrefix, type JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../../lib/db.js";

interface PayloadTable {
  table: string;
  /** The primary key's columns, in its order. */
  key: string[];
  /** The SQL expression naming the run (or agent run) a row belongs to. */
  run: string;
  json: string[];
  text: string[];
}

/** Where run payloads are stored. */
export const RUN_PAYLOAD_COLUMNS: readonly PayloadTable[] = [
  { table: "runs", key: ["id"], run: "id", json: ["input", "output", "error", "rerun"], text: [] },
  { table: "run_steps", key: ["run_id", "node_id", "attempt"], run: "run_id", json: ["output", "error"], text: [] },
  { table: "run_blobs", key: ["id"], run: "run_id", json: ["data"], text: [] },
  { table: "run_items", key: ["run_id", "node_id", "idx"], run: "run_id", json: ["result", "error"], text: [] },
  { table: "log_entries", key: ["id"], run: "run_id", json: ["data"], text: ["message"] },
  { table: "agent_runs", key: ["id"], run: "id", json: ["error"], text: ["instructions", "answer"] },
  {
    table: "agent_steps",
    key: ["agent_run_id", "number"],
    run: "agent_run_id",
    json: ["input", "output"],
    text: ["error"],
  },
  { table: "agent_logs", key: ["id"], run: "agent_run_id", json: ["data"], text: ["message"] },
  { table: "waits", key: ["id"], run: "COALESCE(run_id, agent_run_id)", json: [], text: ["message", "tool_arguments"] },
];

export interface PayloadReencryption {
  /** Values sealed again (or for the first time). */
  resealed: number;
  /** Rows whose values do not open (a key missing from the ring, or altered), by table and key. */
  unreadable: Array<{ table: string; key: string; reason: string }>;
}

const ident = (name: string) => Prisma.raw(`"${name}"`);

export async function reencryptRunPayloads(
  prisma: PrismaClient,
  seal: JsonSeal,
  { batchSize = 200, runIds }: { batchSize?: number; /** Only these runs' payloads. */ runIds?: string[] } = {},
): Promise<PayloadReencryption> {
  const keyId = seal.keyId;
  if (!keyId) throw new Error("No key to seal with: SVC_ENCRYPTION_KEY is not set");
  const result: PayloadReencryption = { resealed: 0, unreadable: [] };
  const sealedPrefix = sealedTextPrefix(keyId);
  for (const { table, key, run, json, text } of RUN_PAYLOAD_COLUMNS) {
    const ofRuns = runIds ? Prisma.sql` AND ${Prisma.raw(run)} IN (${Prisma.join(runIds)})` : Prisma.empty;
    const keyColumns = Prisma.join(key.map(ident));
    const stale = Prisma.join(
      [
        ...json.map(
          (column) => Prisma.sql`(${ident(column)} IS NOT NULL AND ${ident(column)} <> 'null'::jsonb
            AND NOT COALESCE(jsonb_typeof(${ident(column)}) = 'object'
                     AND ${ident(column)}->>${SEALED_MARKER} = ${SEALED_FORMAT} AND ${ident(column)}->>'key' = ${keyId}, false))`,
        ),
        ...text.map(
          (column) =>
            Prisma.sql`(${ident(column)} IS NOT NULL AND left(${ident(column)}, ${sealedPrefix.length}) <> ${sealedPrefix})`,
        ),
      ],
      " OR ",
    );
    let after: unknown[] | undefined;
    // Bounded: each pass moves the cursor past the rows it read.
    for (let pass = 0; pass < 1_000_000; pass++) {
      const rows = await sqlQuery<Record<string, unknown>>(
        prisma,
        Prisma.sql`
          SELECT ${keyColumns}, ${Prisma.join([...json, ...text].map(ident))} FROM ${ident(table)}
          WHERE (${stale})${ofRuns}${after ? Prisma.sql` AND (${keyColumns}) > (${Prisma.join(after)})` : Prisma.empty}
          ORDER BY ${keyColumns} LIMIT ${batchSize}`,
      );
      if (rows.length === 0) break;
      after = key.map((column) => rows.at(-1)![column]);
      for (const row of rows) {
        // Only the values to seal are written, each only if it is still the one read.
        const set: Prisma.Sql[] = [];
        const unchanged: Prisma.Sql[] = [];
        try {
          for (const column of json) {
            const value = row[column];
            if (seal.isCurrent(value)) continue;
            set.push(Prisma.sql`${ident(column)} = ${JSON.stringify(seal.seal(seal.open(value)))}::jsonb`);
            unchanged.push(Prisma.sql`${ident(column)} = ${JSON.stringify(value)}::jsonb`);
          }
          for (const column of text) {
            const value = row[column] as string | null;
            if (value === null || seal.isCurrentText(value)) continue;
            set.push(Prisma.sql`${ident(column)} = ${seal.sealText(seal.openText(value))}`);
            unchanged.push(Prisma.sql`${ident(column)} = ${value}`);
          }
        } catch (error) {
          result.unreadable.push({
            table,
            key: key.map((column) => String(row[column])).join("/"),
            reason: (error as Error).message,
          });
          continue;
        }
        if (set.length === 0) continue;
        const where = [...key.map((column) => Prisma.sql`${ident(column)} = ${row[column]}`), ...unchanged];
        result.resealed += await prisma.$executeRaw(
          Prisma.sql`UPDATE ${ident(table)} SET ${Prisma.join(set, ", ")} WHERE ${Prisma.join(where, " AND ")}`,
        );
      }
    }
  }
  return result;
}
