// Nodes with an `operation` field (kv, data_table, object_storage) keep one flat config object,
// so the catalog lists every field; which fields an operation needs or accepts is checked here.
import type { z } from "zod";

export type OperationFields<Op extends string> = Record<Op, { required?: string[]; optional?: string[] }>;

/**
 * A superRefine check: each field the operation requires is present, and no field that only
 * other operations use is set (it would be silently ignored). Fields no operation lists are
 * common to all, and left to the schema.
 */
export function checkOperationFields<Op extends string>(fields: OperationFields<Op>) {
  const operations = Object.keys(fields) as Op[];
  const usersOf = (field: string) =>
    operations.filter((op) => fields[op].required?.includes(field) || fields[op].optional?.includes(field));
  return (config: Record<string, unknown> & { operation: Op }, ctx: z.RefinementCtx) => {
    const spec = fields[config.operation];
    for (const field of spec.required ?? []) {
      if (config[field] === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: `is required for operation ${config.operation}` });
      }
    }
    for (const [field, value] of Object.entries(config)) {
      const users = usersOf(field);
      if (value === undefined || users.length === 0 || users.includes(config.operation)) continue;
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `is not used by operation ${config.operation} (only by ${users.join(", ")})`,
      });
    }
  };
}
