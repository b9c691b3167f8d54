// /api/audit: the workspace's audit log, read by admins (and API tokens with the admin scope), as
// JSON pages or an export (CSV or JSON, the same filters). There is no route that changes or deletes a row.
import type { Response } from "express";
import { z } from "zod";
import { auditEventView, type AuditEventView, type AuditService } from "../../../core/audit/audit-log.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { decodeCursor, isTimeIdCursor, keysetPage } from "../../http/cursor.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { AUDIT_EXPORT_MAX_ROWS, auditEventSchema, auditQuerySchema } from "./audit.schema.js";

const isAuditCursor = isTimeIdCursor("at");

/** A CSV cell: quoted, and text a spreadsheet would run as a formula (=, +, -, @) made inert. */
function csvCell(value: string | null | undefined): string {
  const text = value ?? "";
  const inert = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${inert.replaceAll('"', '""')}"`;
}

const CSV_COLUMNS = [
  "at",
  "actor_kind",
  "actor_id",
  "actor_label",
  "source_ip",
  "user_agent",
  "action",
  "object_kind",
  "object_id",
  "details",
];

function csvLine(event: AuditEventView): string {
  return [
    event.at,
    event.actor.kind,
    event.actor.id,
    event.actor.label,
    event.source_ip,
    event.user_agent,
    event.action,
    event.object?.kind,
    event.object?.id,
    JSON.stringify(event.details),
  ]
    .map(csvCell)
    .join(",");
}

/** The export's file: CSV (a header line, then a line per row) or JSON ({items}), to download, never cached. */
function sendExport(res: Response, format: "csv" | "json", events: AuditEventView[]) {
  const body =
    format === "csv"
      ? `${[CSV_COLUMNS.join(","), ...events.map(csvLine)].join("\r\n")}\r\n`
      : `${JSON.stringify({ items: events }, null, 2)}\n`;
  res
    .status(200)
    .type(format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8")
    .set("Content-Disposition", `attachment; filename="audit.${format}"`)
    .set("Cache-Control", "no-store")
    .send(body);
}

export function createAuditRouter({ audit }: { audit: AuditService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/audit", "audit");

  route(
    {
      method: "get",
      scope: "admin",
      path: "/",
      summary:
        "The workspace's audit log, newest first: who (person or API token), when, from where, did what to which object. Filters: actor (a user's or token's id), action (or a prefix ending in '.'), object (an id), since/until. format=csv or format=json exports the filtered rows (at most 10,000, newest first) as a file to download (JSON: {items}). Admins only; rows cannot be changed or deleted",
      query: auditQuerySchema,
      responses: {
        200: {
          description: "A page of audit events (or, with format, the export: text/csv, or application/json {items})",
          schema: z.object({ items: z.array(auditEventSchema), next_cursor: z.string().nullable() }),
        },
        400: "Bad query",
        403: "Admins and owners only (an API token needs the admin scope)",
      },
    },
    authorize("audit:read"),
    async (req, res) => {
      const { workspaceId, query } = req.input;
      const after = decodeCursor(query.cursor, isAuditCursor);
      const filter = {
        actor: query.actor,
        action: query.action,
        objectId: query.object,
        since: query.since,
        until: query.until,
        before: after && { at: new Date(after.at), id: after.id },
      };
      if (query.format) {
        const rows = await audit.list(workspaceId, { ...filter, limit: AUDIT_EXPORT_MAX_ROWS });
        sendExport(res, query.format, rows.map(auditEventView));
        return;
      }
      const rows = await audit.list(workspaceId, { ...filter, limit: query.limit + 1 });
      const { page, next_cursor } = keysetPage(rows.map(auditEventView), query.limit, (last) => ({
        at: last.at,
        id: last.id,
      }));
      res.json({ items: page, next_cursor });
    },
  );

  return router;
}
