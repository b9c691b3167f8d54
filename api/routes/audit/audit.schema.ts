import { z } from "zod";
import { AUDIT_ACTIONS } from "../../../core/audit/audit-actions.js";
import { pageQueryFields } from "../../http/cursor.js";

/** At most this many rows in one export, CSV or JSON (newest first); narrow with since/until for more. */
export const AUDIT_EXPORT_MAX_ROWS = 10_000;

const time = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

export const auditQuerySchema = z.strictObject({
  ...pageQueryFields(),
  actor: z.string().min(1).max(100).optional(),
  /** An action, or its prefix ending in "." (credential.). */
  action: z
    .string()
    .max(100)
    .regex(/^[a-z_]+(\.([a-z_]+)?)?$/, "an action (credential.deleted) or a prefix of one (credential.)")
    .optional(),
  object: z.string().min(1).max(100).optional(),
  since: time.optional(),
  until: time.optional(),
  /** Absent: a page. csv or json: the filtered rows as a file to download. */
  format: z.enum(["json", "csv"]).optional(),
});

export const auditEventSchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({
    kind: z.enum(["person", "token", "system"]),
    id: z.string().nullable(),
    label: z.string().nullable(),
  }),
  source_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  object: z.object({ kind: z.string(), id: z.string().nullable() }).nullable(),
  details: z.record(z.string(), z.unknown()),
});
