// The data tables of one workspace (env.db): named tables of JSON rows in data_rows. A table
// exists while it has rows. Every statement is parameterised SQL built in this folder.
import type { Clock } from "../../lib/clock.js";
import { Prisma, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { DATA_TABLE_LIMITS, TABLE_NAME_PATTERN } from "../nodes/shared/data-limits.js";
import type { DataTables, RowFilter } from "../nodes/define-node.js";
import { compileRowFilter, fieldPath, jsonAt } from "./row-filter.js";
import { intOption, invalidInput, isPlainObject, jsonText } from "./store-input.js";

export interface DataTablesDeps {
  prisma: Pick<PrismaClient, "dataRow" | "$queryRaw" | "$executeRaw">;
  clock: Clock;
}

type Row = { id: string } & Record<string, unknown>;

function checkTable(table: unknown): string {
  if (typeof table !== "string" || !TABLE_NAME_PATTERN.test(table)) {
    throw invalidInput(
      `table ${JSON.stringify(table)?.slice(0, 100)} is not a valid name: a lowercase letter, then up to 62 lowercase letters, digits or _`,
    );
  }
  return table;
}

/** A row's data as stored: a JSON object without `id`, which the store assigns. */
function rowData(row: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(row)) throw invalidInput(`${what} must be an object`);
  if ("id" in row) throw invalidInput(`${what} has an "id" field: row ids are assigned by the table`);
  return JSON.parse(jsonText(row, what, DATA_TABLE_LIMITS.maxRowBytes)) as Record<string, unknown>;
}

export function createDataTables({ prisma, clock }: DataTablesDeps, workspaceId: string): DataTables {
  const scope = (table: string) => Prisma.sql`workspace_id = ${workspaceId} AND table_name = ${table}`;

  return {
    /** Inserts rows in one statement, keeping their order; returns them with their new ids. */
    async insert(table, rows) {
      checkTable(table);
      if (!Array.isArray(rows)) throw invalidInput("rows must be an array of objects");
      if (rows.length > DATA_TABLE_LIMITS.maxRowsPerInsert) {
        throw invalidInput(
          `${rows.length} rows given; at most ${DATA_TABLE_LIMITS.maxRowsPerInsert} can be inserted at once`,
        );
      }
      const data = rows.map((row, index) => rowData(row, `rows[${index}]`));
      const bytes = data.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row)), 0);
      if (bytes > DATA_TABLE_LIMITS.maxInsertBytes) {
        throw invalidInput(`the rows are ${bytes} bytes of JSON; at most ${DATA_TABLE_LIMITS.maxInsertBytes} at once`);
      }
      if (data.length === 0) return [];
      const now = clock.now();
      const records = data.map((row) => ({
        id: newId("row"),
        workspaceId,
        table,
        data: row as Prisma.InputJsonObject,
        createdAt: now,
        updatedAt: now,
      }));
      await prisma.dataRow.createMany({ data: records });
      return records.map((record, index) => ({ id: record.id, ...data[index] }));
    },

    /** Rows matching `where`, oldest first unless `orderBy` names a field (then oldest first among equals). */
    async query(table, options = {}) {
      checkTable(table);
      const limit = intOption(options.limit, "limit", {
        min: 1,
        max: DATA_TABLE_LIMITS.maxQueryLimit,
        default: DATA_TABLE_LIMITS.defaultQueryLimit,
      });
      const offset = intOption(options.offset, "offset", { min: 0, max: DATA_TABLE_LIMITS.maxOffset, default: 0 });
      const where = compileRowFilter(options.where);
      const order = [Prisma.sql`created_at ASC`, Prisma.sql`seq ASC`];
      if (options.orderBy !== undefined) order.unshift(orderSql(options.orderBy));
      const rows = await prisma.$queryRaw<Array<{ id: string; data: Record<string, unknown> }>>`
        SELECT id, data FROM data_rows
        WHERE ${scope(table)} AND ${where}
        ORDER BY ${Prisma.join(order)}
        LIMIT ${limit} OFFSET ${offset}`;
      return rows.map((row): Row => ({ id: row.id, ...row.data }));
    },

    /** Merges `patch` into the top level of every matching row; returns how many changed. */
    async update(table, where, patch) {
      checkTable(table);
      const condition = compileWhere(where);
      const data = rowData(patch, "patch");
      if (Object.keys(data).length === 0) throw invalidInput("patch must set at least one field");
      return prisma.$executeRaw`
        UPDATE data_rows SET data = data || ${JSON.stringify(data)}::jsonb, updated_at = ${clock.now()}
        WHERE ${scope(table)} AND ${condition}`;
    },

    /** Deletes every matching row ({} matches them all); returns how many. */
    async delete(table, where) {
      checkTable(table);
      const condition = compileWhere(where);
      return prisma.$executeRaw`DELETE FROM data_rows WHERE ${scope(table)} AND ${condition}`;
    },
  };
}

/** update and delete need an explicit filter, so that "all rows" is always written as {}. */
function compileWhere(where: RowFilter | undefined): Prisma.Sql {
  if (!isPlainObject(where))
    throw invalidInput('where must be an object such as { "status": "done" } ({} for every row)');
  return compileRowFilter(where);
}

function orderSql(orderBy: { field: string; direction?: "asc" | "desc" }): Prisma.Sql {
  if (!isPlainObject(orderBy) || typeof orderBy.field !== "string") {
    throw invalidInput('order_by must name a field, e.g. { "field": "amount", "direction": "desc" }');
  }
  const direction = orderBy.direction ?? "asc";
  if (direction !== "asc" && direction !== "desc") throw invalidInput('order_by direction must be "asc" or "desc"');
  const column = orderBy.field === "id" ? Prisma.sql`id` : jsonAt(fieldPath(orderBy.field));
  // Rows without the field come last either way.
  return direction === "asc" ? Prisma.sql`${column} ASC NULLS LAST` : Prisma.sql`${column} DESC NULLS LAST`;
}
