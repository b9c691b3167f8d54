// The migration 20261127062143_password_resets marks the accounts whose password someone else may
// have chosen. Its marking runs here on a database of its own (the shared test database holds
// every other test's users), on accounts made the ways the service made them before it.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSessionService } from "../core/sessions/sessions.service.js";
import { hashPassword } from "../core/users/password.js";
import { newUserSchema } from "../core/users/users.schema.js";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import type { MemberActor } from "../core/workspaces/actor.js";
import { createInvitesService } from "../core/workspaces/invites.service.js";
import { handOver } from "../core/workspaces/link-delivery.js";
import type { Role } from "../core/workspaces/permissions.js";
import { createWorkspacesService } from "../core/workspaces/workspaces.service.js";
import { systemClock } from "../lib/clock.js";
import { createPrismaClient, type PrismaClient } from "../lib/db.js";
import { newId } from "../lib/ids.js";
import { dropDatabase, ensureDatabase } from "../scripts/infra/postgres.js";
import { applyMigrations } from "../scripts/infra/prisma-cli.js";
import { migrationsDir } from "../scripts/infra/migrations.js";

const MIGRATION = path.join(migrationsDir, "20261127062143_password_resets", "migration.sql");
const MARKING = "-- Accounts whose password someone else may have chosen";
const ITERATIONS = 1000;
const config = { PASSWORD_HASH_ITERATIONS: ITERATIONS, SESSION_IDLE_TIMEOUT: 3_600_000 };

/** The migration's data step (what follows its schema changes). */
function markingSql(): string {
  const sql = readFileSync(MIGRATION, "utf8");
  const start = sql.indexOf(MARKING);
  expect(start, "the migration marks accounts").toBeGreaterThan(0);
  return sql.slice(start);
}

const email = (label: string) => `${label}-${randomUUID()}@example.com`;

describe("the password_resets migration's marking", () => {
  const database = `svc_marking_${randomUUID().replaceAll("-", "")}`;
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

  /** An account as the operator's CLI makes it: with a workspace of its own. */
  async function cliAccount(label: string) {
    const input = newUserSchema.parse({
      email: email(label),
      password: "operator-chose",
      name: label,
      workspace: label,
    });
    const created = await createUserWithWorkspace(prisma, input, { iterations: ITERATIONS });
    const actor: MemberActor = { kind: "member", user: created.user, workspace: created.workspace };
    return { id: created.user.id, email: input.email, workspaceId: created.workspace.workspaceId, actor };
  }

  /** What POST /api/workspace/members did before: an account with the inviter's password, or an existing one added at once. */
  async function oldMemberAdd(workspaceId: string, address: string, role: Role) {
    const existing = await prisma.user.findUnique({ where: { email: address }, select: { id: true } });
    const user =
      existing ??
      (await prisma.user.create({
        data: {
          id: newId("usr"),
          email: address,
          name: "added",
          passwordHash: await hashPassword("admin-chose", 1000),
        },
        select: { id: true },
      }));
    await prisma.membership.create({ data: { userId: user.id, workspaceId, role } });
    return user.id;
  }

  /** An account made by accepting an invite (its own name and password) to the inviter's workspace. */
  async function inviteAccount(inviter: MemberActor, label: string) {
    const invites = createInvitesService({ prisma, clock: systemClock, config, delivery: handOver });
    const address = email(label);
    const created = await invites.create(inviter, { email: address, role: "editor" });
    const token = ("accept_url" in created ? created.accept_url : "").split("/").at(-1)!;
    const joined = await invites.accept(token, { name: label, password: "chose-it-myself" });
    return { id: joined.userId, email: address };
  }

  async function marks(ids: string[]) {
    const users = await prisma.user.findMany({
      where: { id: { in: ids } },
      select: { id: true, passwordResetRequired: true },
    });
    return Object.fromEntries(users.map((u) => [u.id, u.passwordResetRequired]));
  }

  it("marks accounts made or joined by member-add, ends their sessions, and leaves the others", async () => {
    const eve = await cliAccount("eve");
    const acme = await cliAccount("acme-admin");
    // Made by member-add, with a password Eve chose; later added to Acme at once.
    const preclaimed = await oldMemberAdd(eve.workspaceId, email("cfo"), "viewer");
    await oldMemberAdd(
      acme.workspaceId,
      (await prisma.user.findUniqueOrThrow({ where: { id: preclaimed } })).email,
      "admin",
    );
    // Made by member-add in Acme only (Acme's admin chose the password).
    const madeByAdmin = await oldMemberAdd(acme.workspaceId, email("staff"), "editor");
    // Made by member-add, then removed: no membership left.
    const removed = await oldMemberAdd(eve.workspaceId, email("removed"), "viewer");
    await prisma.membership.deleteMany({ where: { userId: removed } });
    // Chose its own password through Eve's invite, then was added to Acme without being asked.
    const selfInvited = await inviteAccount(eve.actor, "self-invited");
    await oldMemberAdd(acme.workspaceId, selfInvited.email, "viewer");
    // Chose its own password through an invite, and made a workspace of its own.
    const invited = await inviteAccount(acme.actor, "invited");
    const invitedActor: MemberActor = {
      kind: "member",
      user: { id: invited.id, email: invited.email, name: "invited" },
      workspace: { workspaceId: acme.workspaceId, name: "acme-admin", role: "editor" },
    };
    await createWorkspacesService({
      prisma,
      clock: systemClock,
      config: { RUN_TREE_MAX_DEPTH: 16, RUN_TREE_MAX_RUNS: 5000 },
    }).create(invitedActor, "Side project");
    // Made by the operator's CLI, then added to Acme at once: the operator chose its password.
    const operatorMade = await cliAccount("operator-made");
    await oldMemberAdd(acme.workspaceId, operatorMade.email, "editor");

    const sessions = createSessionService({ prisma, clock: systemClock, config });
    await sessions.create(preclaimed, eve.workspaceId);
    await sessions.create(operatorMade.id, operatorMade.workspaceId);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(markingSql());
    } finally {
      await client.end();
    }

    expect(
      await marks([preclaimed, madeByAdmin, removed, selfInvited.id, invited.id, operatorMade.id, eve.id, acme.id]),
    ).toEqual({
      [preclaimed]: true,
      [madeByAdmin]: true,
      [removed]: true,
      [selfInvited.id]: true,
      [invited.id]: false,
      [operatorMade.id]: false,
      [eve.id]: false,
      [acme.id]: false,
    });
    expect(await prisma.session.count({ where: { userId: preclaimed } })).toBe(0);
    expect(await prisma.session.count({ where: { userId: operatorMade.id } })).toBe(1);
  });
});
