import { z } from "zod";
import { DATA_TABLE_LIMITS, TABLE_NAME_PATTERN } from "../shared/data-limits.js";
import { defineNode } from "../define-node.js";
import { NodeError } from "../node-error.js";
import { checkOperationFields } from "../shared/operation-fields.js";

const OPERATIONS = ["insert", "query", "update", "delete"] as const;

const filter = z.record(z.string(), z.unknown());

/** "amount" (ascending), "-amount" (descending) or { field, direction }. */
const orderBy = z.union([
  z.string().min(1),
  z.object({ field: z.string().min(1), direction: z.enum(["asc", "desc"]).default("asc") }),
]);

function orderOf(value: z.infer<typeof orderBy> | undefined) {
  if (value === undefined || typeof value === "object") return value;
  return value.startsWith("-") && value.length > 1
    ? { field: value.slice(1), direction: "desc" as const }
    : { field: value, direction: "asc" as const };
}

export const dataTableNode = defineNode({
  type: "data_table",
  version: 1,
  name: "Data table",
  category: "data",
  description:
    "Inserts, queries, updates or deletes JSON rows of a table in the workspace's data tables; filters compare fields (dotted paths reach nested ones) with eq, ne, gt, gte, lt, lte, contains or in. Outputs { table, inserted, rows }, { table, rows, count }, { table, updated } or { table, deleted }.",
  kind: "activity",
  reachesOutside: true,
  config: z
    .object({
      operation: z.enum(OPERATIONS).meta({ label: "Operation" }),
      table: z
        .string()
        .regex(TABLE_NAME_PATTERN, "must be a lowercase letter, then up to 62 lowercase letters, digits or _")
        .meta({ label: "Table", placeholder: "orders" }),
      rows: z
        .union([z.array(z.record(z.string(), z.unknown())).max(DATA_TABLE_LIMITS.maxRowsPerInsert), filter])
        .optional()
        .meta({ label: "Rows (insert)", placeholder: "{{ input.items }}" }),
      where: filter.optional().meta({ label: "Where (query, update, delete)", placeholder: '{ "status": "open" }' }),
      patch: filter.optional().meta({ label: "Set fields (update)", placeholder: '{ "status": "done" }' }),
      limit: z
        .number()
        .int()
        .min(1)
        .max(DATA_TABLE_LIMITS.maxQueryLimit)
        .optional()
        .meta({ label: "Limit (query)", placeholder: String(DATA_TABLE_LIMITS.defaultQueryLimit) }),
      offset: z
        .number()
        .int()
        .min(0)
        .max(DATA_TABLE_LIMITS.maxOffset)
        .optional()
        .meta({ label: "Offset (query)", placeholder: "0" }),
      order_by: orderBy.optional().meta({ label: "Order by (query)", placeholder: "-amount" }),
    })
    .superRefine(
      checkOperationFields<(typeof OPERATIONS)[number]>({
        insert: { required: ["rows"] },
        query: { optional: ["where", "limit", "offset", "order_by"] },
        // An explicit where, so that changing every row is written as {}.
        update: { required: ["where", "patch"] },
        delete: { required: ["where"] },
      }),
    ),
  async execute(_input, config, env) {
    const db = env.db;
    if (!db) throw new NodeError("This runtime provides no data tables", { retryable: false });
    const { table } = config;
    switch (config.operation) {
      case "insert": {
        const rows = await db.insert(table, Array.isArray(config.rows) ? config.rows : [config.rows!]);
        return { table, inserted: rows.length, rows };
      }
      case "query": {
        const rows = await db.query(table, {
          where: config.where,
          limit: config.limit,
          offset: config.offset,
          orderBy: orderOf(config.order_by),
        });
        return { table, rows, count: rows.length };
      }
      case "update":
        return { table, updated: await db.update(table, config.where!, config.patch!) };
      case "delete":
        return { table, deleted: await db.delete(table, config.where!) };
    }
  },
});
