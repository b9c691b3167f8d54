// The migration 20261128023117_password_reset_binding records what each reset link was issued
// against, and revokes the unused links members issued before (nothing recorded their memberships
// then). Its data step runs here on a database of its own, on links as they were before it: the
// new column emptied again, as the migration's first step leaves it.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "../lib/db.js";
import { newId } from "../lib/ids.js";
import { dropDatabase, ensureDatabase } from "../scripts/infra/postgres.js";
import { applyMigrations } from "../scripts/infra/prisma-cli.js";
import { migrationsDir } from "../scripts/infra/migrations.js";

const MIGRATION = path.join(migrationsDir, "20261128023117_password_reset_binding", "migration.sql");
const DATA_STEP = "-- A reset link is now checked again when used";

describe("the password_reset_binding migration's data step", () => {
  const database = `svc_binding_${randomUUID().replaceAll("-", "")}`;
  const adminUrl = inject("databaseUrl");
  let databaseUrl: string;
  let prisma: PrismaClient;

  beforeAll(async () => {
    await ensureDatabase(adminUrl, database);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    await applyMigrations(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { maxConnections: 2 });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await dropDatabase(adminUrl, database);
  });

  it("records each link's account, revokes the unused links of members and keeps the operator's", async () => {
    const changedAt = new Date("2026-11-01T10:00:00.123Z");
    const user = (label: string) =>
      prisma.user.create({
        data: {
          id: newId("usr"),
          email: `${label}-${randomUUID()}@example.com`,
          name: label,
          passwordHash: "x",
          passwordChangedAt: changedAt,
        },
      });
    const admin = await user("admin");
    const member = await user("member");
    const workspaces = [newId("ws"), newId("ws")].sort();
    for (const id of workspaces) {
      await prisma.workspace.create({ data: { id, name: id } });
      await prisma.membership.create({ data: { userId: admin.id, workspaceId: id, role: "owner" } });
    }
    await prisma.membership.create({ data: { userId: member.id, workspaceId: workspaces[1]!, role: "editor" } });
    await prisma.membership.create({ data: { userId: member.id, workspaceId: workspaces[0]!, role: "viewer" } });
    const now = new Date();
    const link = (id: string, issuedBy: string | null, usedAt: Date | null) =>
      prisma.passwordReset.create({
        data: {
          id,
          userId: member.id,
          tokenHash: randomUUID(),
          issuedBy,
          issuedAgainst: {},
          createdAt: now,
          expiresAt: new Date(now.getTime() + 86_400_000),
          usedAt,
        },
      });
    await link("pwr_members_unused", admin.id, null);
    await link("pwr_members_used", admin.id, now);
    await link("pwr_operators_unused", null, null);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      // As before the migration: no record of what a link was issued against.
      await client.query(`ALTER TABLE "password_resets" ALTER COLUMN "issued_against" DROP NOT NULL`);
      await client.query(`UPDATE "password_resets" SET "issued_against" = NULL`);
      const sql = readFileSync(MIGRATION, "utf8");
      expect(sql.indexOf(DATA_STEP), "the migration has its data step").toBeGreaterThan(0);
      await client.query(sql.slice(sql.indexOf(DATA_STEP)));
    } finally {
      await client.end();
    }

    const links = await prisma.passwordReset.findMany({ where: { userId: member.id }, orderBy: { id: "asc" } });
    const issuedAgainst = {
      email: member.email,
      password_changed_at: "2026-11-01T10:00:00.123Z",
      memberships: [
        { workspace_id: workspaces[0], role: "viewer" },
        { workspace_id: workspaces[1], role: "editor" },
      ],
    };
    expect(links.map((l) => [l.id, l.issuedAgainst, l.revokedAt !== null])).toEqual([
      ["pwr_members_unused", issuedAgainst, true],
      ["pwr_members_used", issuedAgainst, false],
      ["pwr_operators_unused", issuedAgainst, false],
    ]);
  });
});
