import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { verifyPassword } from "./password.js";
import { newUserSchema } from "./users.schema.js";
import { createUserWithWorkspace, UserExists } from "./users.service.js";

const uniqueEmail = () => `user-${randomUUID()}@example.com`;

describe("createUserWithWorkspace", () => {
  it("creates the user, its workspace and an owner membership with a verifiable hash", async () => {
    const prisma = testPrisma();
    const email = uniqueEmail();
    const input = newUserSchema.parse({ email, password: "s3cret-pass", name: "Ada", workspace: "Acme" });

    const created = await createUserWithWorkspace(prisma, input, { iterations: 1000 });

    expect(created.user).toEqual({ id: expect.stringMatching(/^usr_[0-9a-f]{24}$/), email, name: "Ada" });
    expect(created.workspace).toEqual({
      workspaceId: expect.stringMatching(/^ws_[0-9a-f]{24}$/),
      name: "Acme",
      role: "owner",
    });
    const membership = await prisma.membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: created.user.id, workspaceId: created.workspace.workspaceId } },
      include: { user: true },
    });
    expect(membership.role).toBe("owner");
    expect(await verifyPassword("s3cret-pass", membership.user.passwordHash, 1000)).toMatchObject({ valid: true });
  });

  it("normalises the e-mail and refuses a second user with it (409)", async () => {
    const prisma = testPrisma();
    const email = uniqueEmail();
    const first = newUserSchema.parse({
      email: `  ${email.toUpperCase()} `,
      password: "password-1",
      name: "A",
      workspace: "W",
    });
    expect(first.email).toBe(email);
    await createUserWithWorkspace(prisma, first, { iterations: 1000 });

    const again = createUserWithWorkspace(prisma, { ...first, name: "B" }, { iterations: 1000 });
    await expect(again).rejects.toBeInstanceOf(UserExists);
    await expect(again).rejects.toMatchObject({ kind: "conflict", code: "conflict" });
    expect(await prisma.user.count({ where: { email } })).toBe(1);
  });

  it("refuses invalid input before touching the database", () => {
    const result = newUserSchema.safeParse({ email: "not-an-email", password: "short", name: "", workspace: "W" });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path[0]).sort()).toEqual(["email", "name", "password"]);
    expect(
      newUserSchema.safeParse({ email: uniqueEmail(), password: "x".repeat(257), name: "A", workspace: "W" }).success,
    ).toBe(false);
  });
});
