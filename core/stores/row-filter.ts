// The filter language of data tables, compiled to parameterised SQL over the `data` jsonb column.
// Field names and values only ever travel as query parameters; the SQL text comes from this file.
//
//   { status: "open" }                      equality (also for objects and arrays)
//   { "customer.tier": { in: ["a", "b"] } } dotted paths reach into nested objects (and arrays by index)
//   { amount: { gte: 10, lt: 100 } }        several operators on one field are ANDed
//   { id: "row_…" }                         `id` is the row's id (eq, ne, in)
import { Prisma } from "../../lib/db.js";
import type { RowFilter } from "../nodes/define-node.js";
import { invalidInput, isPlainObject, isUnstorableText, jsonText } from "./store-input.js";

export const FILTER_OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "contains", "in"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const FILTER_LIMITS = {
  maxFields: 50,
  maxPathDepth: 16,
  maxSegmentLength: 128,
  maxInValues: 1000,
  maxFilterBytes: 64 * 1024,
} as const;

const COMPARISONS = {
  gt: Prisma.sql`>`,
  gte: Prisma.sql`>=`,
  lt: Prisma.sql`<`,
  lte: Prisma.sql`<=`,
} as const;

const isOperator = (key: string): key is FilterOperator => (FILTER_OPERATORS as readonly string[]).includes(key);

/** The segments of a dotted field path: `customer.address.city` → three segments. */
export function fieldPath(field: string): string[] {
  const segments = field.split(".");
  if (
    field.length === 0 ||
    segments.length > FILTER_LIMITS.maxPathDepth ||
    segments.some((segment) => segment.length === 0 || segment.length > FILTER_LIMITS.maxSegmentLength)
  ) {
    throw invalidInput(
      `field "${field.slice(0, 200)}" must be a name or a dotted path of at most ${FILTER_LIMITS.maxPathDepth} non-empty parts`,
    );
  }
  if (isUnstorableText(field)) {
    throw invalidInput(`field "${field.slice(0, 200)}" contains a NUL character or an unpaired surrogate`);
  }
  return segments;
}

/** The jsonb at a path of the row's data (SQL NULL when absent). */
export const jsonAt = (path: string[]) => Prisma.sql`(data #> ${path}::text[])`;

const jsonParam = (value: unknown) =>
  Prisma.sql`${jsonText(value, "filter value", FILTER_LIMITS.maxFilterBytes)}::jsonb`;

/** `{ a: { b: value } }` for path a.b: what a row containing that value at that path contains. */
function containment(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
}

function equals(path: string[], value: unknown): Prisma.Sql {
  const at = jsonAt(path);
  // null matches a JSON null and an absent field alike.
  if (value === null) return Prisma.sql`COALESCE(jsonb_typeof(${at}), 'null') = 'null'`;
  const exact = Prisma.sql`${at} = ${jsonParam(value)}`;
  // A numeric segment may index an array, which containment of an object cannot express.
  if (path.some((segment) => /^\d+$/.test(segment))) return exact;
  // Containment is implied by equality and can use the GIN index on data.
  return Prisma.sql`(data @> ${jsonParam(containment(path, value))} AND ${exact})`;
}

function operatorSql(field: string, path: string[], operator: FilterOperator, value: unknown): Prisma.Sql {
  const at = jsonAt(path);
  switch (operator) {
    case "eq":
      return equals(path, value);
    case "ne":
      if (value === null) return Prisma.sql`COALESCE(jsonb_typeof(${at}), 'null') <> 'null'`;
      return Prisma.sql`${at} IS DISTINCT FROM ${jsonParam(value)}`;
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (typeof value !== "number" && typeof value !== "string") {
        throw invalidInput(`where.${field}.${operator} needs a number or a string`);
      }
      // jsonb orders values of different types by type: compare like with like only.
      const type = typeof value === "number" ? "number" : "string";
      return Prisma.sql`(jsonb_typeof(${at}) = ${type} AND ${at} ${COMPARISONS[operator]} ${jsonParam(value)})`;
    }
    case "contains": {
      const inArray = Prisma.sql`(jsonb_typeof(${at}) = 'array' AND ${at} @> ${jsonParam([value])})`;
      if (typeof value !== "string") return inArray;
      const inString = Prisma.sql`(jsonb_typeof(${at}) = 'string' AND strpos(data #>> ${path}::text[], ${value}) > 0)`;
      return Prisma.sql`(${inString} OR ${inArray})`;
    }
    case "in": {
      if (!Array.isArray(value) || value.length > FILTER_LIMITS.maxInValues) {
        throw invalidInput(`where.${field}.in needs an array of at most ${FILTER_LIMITS.maxInValues} values`);
      }
      if (value.length === 0) return Prisma.sql`FALSE`;
      const listed = Prisma.sql`${at} IN (${Prisma.join(value.map(jsonParam))})`;
      return value.includes(null) ? Prisma.sql`(${listed} OR ${equals(path, null)})` : listed;
    }
  }
}

/** `id` is the row's own column, not a field of its data. */
function idSql(operator: FilterOperator, value: unknown): Prisma.Sql {
  const ids = operator === "in" ? value : [value];
  if (!Array.isArray(ids) || ids.length > FILTER_LIMITS.maxInValues || ids.some((id) => typeof id !== "string")) {
    throw invalidInput(
      operator === "in" ? "where.id.in needs an array of row ids (strings)" : `where.id.${operator} needs a row id`,
    );
  }
  switch (operator) {
    case "eq":
      return Prisma.sql`id = ${value as string}`;
    case "ne":
      return Prisma.sql`id <> ${value as string}`;
    case "in":
      return ids.length === 0 ? Prisma.sql`FALSE` : Prisma.sql`id IN (${Prisma.join(ids)})`;
    default:
      throw invalidInput(`where.id supports eq, ne and in, not ${operator}`);
  }
}

/**
 * The conditions of a filter, as one SQL boolean expression. A plain-object value lists
 * operators (every key must be one); any other value is compared for equality.
 */
export function compileRowFilter(where: RowFilter | undefined): Prisma.Sql {
  if (where === undefined || where === null) return Prisma.sql`TRUE`;
  if (!isPlainObject(where)) throw invalidInput('where must be an object such as { "status": "open" }');
  const fields = Object.entries(where);
  if (fields.length > FILTER_LIMITS.maxFields) {
    throw invalidInput(`where has ${fields.length} fields; at most ${FILTER_LIMITS.maxFields} are allowed`);
  }
  jsonText(where, "where", FILTER_LIMITS.maxFilterBytes);
  const conditions: Prisma.Sql[] = [];
  for (const [field, condition] of fields) {
    const path = fieldPath(field);
    const toSql = (operator: FilterOperator, value: unknown) =>
      field === "id" ? idSql(operator, value) : operatorSql(field, path, operator, value);
    if (!isPlainObject(condition)) {
      conditions.push(toSql("eq", condition));
      continue;
    }
    const operators = Object.entries(condition);
    if (operators.length === 0) {
      throw invalidInput(`where.${field} has no operator; to match an empty object write { "eq": {} }`);
    }
    for (const [operator, value] of operators) {
      if (!isOperator(operator)) {
        throw invalidInput(
          `where.${field}: unknown operator "${operator}" (use ${FILTER_OPERATORS.join(", ")}; to match an object write { "eq": {…} })`,
        );
      }
      conditions.push(toSql(operator, value));
    }
  }
  return conditions.length === 0 ? Prisma.sql`TRUE` : Prisma.join(conditions, " AND ");
}
