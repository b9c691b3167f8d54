// Invites: a pending member by e-mail, who joins through a one-time link, and a member offered the
// owner role, who takes it the same way. There is no mail server: the link goes back to the
// inviter, who passes it on. Only the SHA-256 of the link's token is kept.
import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { hashLinkToken, LINK_TOKEN, newLinkToken } from "../../lib/crypto/link-tokens.js";
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { InvalidInput } from "../errors.js";
import { hashPassword } from "../users/password.js";
import { passwordSchema } from "../users/users.schema.js";
import type { Actor } from "./actor.js";
import {
  AlreadyMember,
  InviteExpired,
  InviteNotFound,
  InviteUsed,
  InviteWithdrawn,
  MemberChangeForbidden,
} from "./member-errors.js";
import { can, type Role } from "./permissions.js";

/** How long a link works. */
export const INVITE_LIFETIME_MS = 7 * 86_400_000;

/** The dashboard's page that accepts an invite (a path: the dashboard adds its own origin). */
export const invitePath = (token: string) => `/invite/${token}`;

export interface InviteView {
  id: string;
  email: string;
  role: Role;
  invited_by: { id: string; name: string } | null;
  created_at: string;
  expires_at: string;
  /** pending until expires_at, then expired (accepted invites are members and leave the list). */
  status: "pending" | "expired";
}

/** A new invite and its link; the link is shown this once. */
export interface InviteCreated {
  invite: InviteView;
  accept_url: string;
  /** How the link reaches the invitee: `link`, handed to the inviter (no mail server is configured). */
  delivery: "link";
}

/**
 * What the invite page shows before the invitee accepts. Whether an account has the e-mail is not
 * shown: the inviter holds the link, and must not learn it from the page.
 */
export interface InvitePreview {
  email: string;
  role: Role;
  workspace: { name: string };
  invited_by: { name: string } | null;
  expires_at: string;
}

type InviteRow = {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  inviter: { id: string; name: string } | null;
};

const inviteSelect = {
  id: true,
  email: true,
  role: true,
  createdAt: true,
  expiresAt: true,
  inviter: { select: { id: true, name: true } },
} as const;

// Invite ids are the API's own (inv_ and 96 random bits in hex, as newId makes the others).
const newInviteId = () => `inv_${randomBytes(12).toString("hex")}`;

export function createInvitesService({
  prisma,
  clock,
  config,
}: {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "PASSWORD_HASH_ITERATIONS">;
}) {
  const toView = (row: InviteRow): InviteView => ({
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: row.inviter,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    status: row.expiresAt.getTime() <= clock.now().getTime() ? "expired" : "pending",
  });

  /** The invite of a token, whatever its state; a malformed token is an unknown one. */
  async function findByToken(token: string) {
    if (!LINK_TOKEN.test(token)) throw new InviteNotFound();
    const invite = await prisma.invite.findUnique({
      where: { tokenHash: hashLinkToken(token) },
      select: {
        ...inviteSelect,
        workspaceId: true,
        acceptedAt: true,
        workspace: { select: { name: true } },
      },
    });
    if (!invite) throw new InviteNotFound();
    return invite;
  }

  /** The invite a token may still accept: unknown 404, used 409, expired 410. */
  async function openInvite(token: string) {
    const invite = await findByToken(token);
    if (invite.acceptedAt) throw new InviteUsed();
    if (invite.expiresAt.getTime() <= clock.now().getTime()) throw new InviteExpired();
    return invite;
  }

  /** A new link for the e-mail in the actor's workspace; it replaces the e-mail's pending invite. */
  async function issue(actor: Actor, email: string, role: Role): Promise<InviteCreated> {
    const workspaceId = actor.workspace.workspaceId;
    const token = newLinkToken();
    const now = clock.now();
    const [, invite] = await prisma.$transaction([
      prisma.invite.deleteMany({ where: { workspaceId, email, acceptedAt: null } }),
      prisma.invite.create({
        data: {
          id: newInviteId(),
          workspaceId,
          email,
          role,
          tokenHash: hashLinkToken(token),
          invitedBy: actor.user.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + INVITE_LIFETIME_MS),
        },
        select: inviteSelect,
      }),
    ]);
    return { invite: toView(invite), accept_url: invitePath(token), delivery: "link" };
  }

  return {
    /**
     * Invites an e-mail to the actor's workspace with a role (the owner role only by an owner).
     * The same for an e-mail with an account and one without: nobody joins without accepting, and
     * the answer does not tell whether an account has the e-mail. Inviting the same e-mail again
     * replaces its pending invite: only the newest link works.
     */
    async create(actor: Actor, input: { email: string; role: Role }): Promise<InviteCreated> {
      if (!can(actor.workspace.role, "members:manage")) {
        throw new MemberChangeForbidden(`Your role (${actor.workspace.role}) does not allow managing members`);
      }
      if (input.role === "owner" && !can(actor.workspace.role, "owners:manage")) {
        throw new MemberChangeForbidden("Only an owner can grant, change or remove the owner role");
      }
      // Members of the actor's own workspace are no secret to them: the members list shows them.
      const member = await prisma.membership.findFirst({
        where: { workspaceId: actor.workspace.workspaceId, user: { email: input.email } },
        select: { userId: true },
      });
      if (member) throw new AlreadyMember();
      return issue(actor, input.email, input.role);
    },

    /**
     * Offers the owner role to a member of the actor's workspace (the caller checked both): an
     * invite with the owner role, which the member accepts or lets lapse.
     */
    async offerOwnership(actor: Actor, email: string): Promise<InviteCreated> {
      return issue(actor, email, "owner");
    },

    /** The workspace's invites not yet accepted, newest first (expired ones too, until revoked). */
    async list(workspaceId: string): Promise<InviteView[]> {
      const invites = await prisma.invite.findMany({
        where: { workspaceId, acceptedAt: null },
        select: inviteSelect,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: 200,
      });
      return invites.map(toView);
    },

    /** Withdraws an invite not yet accepted: its link stops working. */
    async revoke(actor: Actor, inviteId: string): Promise<void> {
      const workspaceId = actor.workspace.workspaceId;
      const invite = await prisma.invite.findFirst({
        where: { id: inviteId, workspaceId, acceptedAt: null },
        select: { role: true },
      });
      if (!invite) throw new InviteNotFound();
      if (invite.role === "owner" && !can(actor.workspace.role, "owners:manage")) {
        throw new MemberChangeForbidden("Only an owner can revoke an invite to the owner role");
      }
      await prisma.invite.deleteMany({ where: { id: inviteId, workspaceId, acceptedAt: null } });
    },

    /** What the invite page shows; the token is the only authority. */
    async preview(token: string): Promise<InvitePreview> {
      const invite = await openInvite(token);
      return {
        email: invite.email,
        role: invite.role,
        workspace: invite.workspace,
        invited_by: invite.inviter && { name: invite.inviter.name },
        expires_at: invite.expiresAt.toISOString(),
      };
    },

    /** Declines an invite not yet accepted: its link stops working, and nobody joins. */
    async decline(token: string): Promise<void> {
      await openInvite(token);
      await prisma.invite.deleteMany({ where: { tokenHash: hashLinkToken(token), acceptedAt: null } });
    },

    /** The e-mail a token invites and whether an account has it (the API checks that account's password). */
    async accountFor(token: string): Promise<{ email: string; userId: string | null }> {
      const invite = await openInvite(token);
      const account = await prisma.user.findUnique({ where: { email: invite.email }, select: { id: true } });
      return { email: invite.email, userId: account?.id ?? null };
    },

    /**
     * Accepts an invite: burns the token and adds the membership with the invited role (or raises
     * a member to owner, for an owner offer), in one transaction. `account` is the existing account
     * of the e-mail, its password or session already checked, or the name and password of a new one.
     */
    async accept(
      token: string,
      account: { userId: string } | { name: string | undefined; password: string },
    ): Promise<{ userId: string; workspaceId: string }> {
      let newAccount: { name: string; passwordHash: string } | undefined;
      if (!("userId" in account)) {
        const problems: Array<{ path: string; message: string }> = [];
        const name = account.name?.trim();
        if (!name) problems.push({ path: "name", message: "a new account needs a name" });
        const password = passwordSchema.safeParse(account.password);
        if (!password.success) problems.push({ path: "password", message: password.error.issues[0]!.message });
        if (problems.length > 0) throw new InvalidInput("The new account's name or password is not valid", problems);
        // Checked before hashing, so that a used or expired link costs no hash.
        await openInvite(token);
        newAccount = {
          name: name!,
          passwordHash: await hashPassword(account.password, config.PASSWORD_HASH_ITERATIONS),
        };
      }
      const now = clock.now();
      return prisma.$transaction(async (tx) => {
        // The burn is one conditional update: of two concurrent accepts, one wins.
        const burnt = await tx.invite.updateManyAndReturn({
          where: { tokenHash: hashLinkToken(token), acceptedAt: null, expiresAt: { gt: now } },
          data: { acceptedAt: now },
          select: { workspaceId: true, email: true, role: true, invitedBy: true },
        });
        const invite = burnt[0];
        if (!invite) {
          await openInvite(token); // throws what the token's state is
          throw new InviteNotFound();
        }
        let userId: string;
        if ("userId" in account) {
          const user = await tx.user.findUnique({ where: { id: account.userId }, select: { email: true } });
          if (user?.email !== invite.email) throw new InviteNotFound();
          userId = account.userId;
        } else {
          // The unique e-mail index refuses an account made meanwhile (P2002: 409).
          const user = await tx.user.create({
            data: { id: newId("usr"), email: invite.email, ...newAccount! },
            select: { id: true },
          });
          userId = user.id;
        }
        if (invite.role === "owner") await requireOwnerInviter(tx, invite);
        await joinWithRole(tx, { userId, workspaceId: invite.workspaceId, role: invite.role });
        return { userId, workspaceId: invite.workspaceId };
      });
    },
  };
}

/** An owner invite stands only while the owner who made it still is one. */
async function requireOwnerInviter(
  tx: Prisma.TransactionClient,
  invite: { workspaceId: string; invitedBy: string | null },
) {
  const inviter = invite.invitedBy
    ? await tx.membership.findUnique({
        where: { userId_workspaceId: { userId: invite.invitedBy, workspaceId: invite.workspaceId } },
        select: { role: true },
      })
    : null;
  if (inviter?.role !== "owner") throw new InviteWithdrawn();
}

/** Adds the membership, or raises a member to owner (an owner offer); anything else is a member already. */
async function joinWithRole(tx: Prisma.TransactionClient, join: { userId: string; workspaceId: string; role: Role }) {
  const key = { userId_workspaceId: { userId: join.userId, workspaceId: join.workspaceId } };
  const existing = await tx.membership.findUnique({ where: key, select: { role: true } });
  if (!existing) {
    await tx.membership.create({ data: join });
    return;
  }
  if (join.role !== "owner" || existing.role === "owner") throw new AlreadyMember();
  await tx.membership.update({ where: key, data: { role: "owner" } });
}

export type InvitesService = ReturnType<typeof createInvitesService>;
