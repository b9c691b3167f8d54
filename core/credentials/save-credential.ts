// Writing a credential: a new one, or a change to one (a rename, a rotation of its values).
import type { z } from "zod";
import type { Clock } from "../../lib/clock.js";
import type { Prisma, PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import type { AiProvider } from "../ai/providers.js";
import { CredentialNameTaken, CredentialsDisabled, InvalidInput } from "../errors.js";
import { findCredential } from "./credential-reads.js";
import { openSecret, sealSecret, type CredentialKeys } from "./credential-seal.js";
import {
  credentialDataSchemas,
  joinCredential,
  splitCredential,
  type CredentialType,
} from "../contracts/credential-types.js";
import { credentialView, type CredentialView } from "./credential-views.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";

export type NewCredential = {
  [T in CredentialType]: { name: string; type: T; data: z.input<(typeof credentialDataSchemas)[T]> };
}[CredentialType];

export interface CredentialChange {
  name?: string;
  /** Fields to replace, of the credential's own type; the others keep their values. */
  data?: Record<string, unknown>;
}

export interface SaveCredentialDeps {
  prisma: PrismaClient;
  clock: Clock;
  keys: CredentialKeys;
}

/** The values of a type, checked whole (defaults applied); InvalidInput names each field at fault. */
function checkedData(type: CredentialType, data: unknown): Record<string, unknown> {
  const parsed = credentialDataSchemas[type].safeParse(data);
  if (parsed.success) return parsed.data;
  throw new InvalidInput(
    `Invalid values for a ${type} credential`,
    parsed.error.issues.map((issue) => ({ path: ["data", ...issue.path].join("."), message: issue.message })),
  );
}

/** A unique-name violation as the name taken; any other error as it is. */
const nameTaken = (error: unknown, name: string | undefined) =>
  name !== undefined && (error as { code?: unknown }).code === "P2002" ? new CredentialNameTaken(name) : error;

export async function createCredential(
  { prisma, clock, keys }: SaveCredentialDeps,
  workspaceId: string,
  userId: string,
  input: NewCredential,
  options: { defaultFor?: AiProvider; audit?: AuditContext } = {},
): Promise<CredentialView> {
  const { fields, secret, last4 } = splitCredential(input.type, checkedData(input.type, input.data));
  const id = newId("cred");
  const sealed = sealSecret(keys, { workspaceId, id, type: input.type, fields }, secret);
  const now = clock.now();
  const row = await prisma
    .$transaction(async (tx) => {
      const created = await tx.credential.create({
        data: {
          id,
          workspaceId,
          name: input.name,
          type: input.type,
          fields: fields as Prisma.InputJsonObject,
          ...sealed,
          last4,
          defaultFor: options.defaultFor ?? null,
          createdBy: userId,
          createdAt: now,
          updatedBy: userId,
          updatedAt: now,
        },
      });
      if (options.audit)
        await recordAudit(tx, clock, options.audit, {
          action: "credential.created",
          object: { kind: "credential", id },
          details: { name: input.name, type: input.type },
        });
      return created;
    })
    .catch((error: unknown) => {
      throw nameTaken(error, input.name);
    });
  return credentialView(row);
}

/** Renames, and replaces values (a rotation): `data` is merged over the stored values and checked whole. */
export async function updateCredential(
  { prisma, clock, keys }: SaveCredentialDeps,
  workspaceId: string,
  userId: string,
  id: string,
  change: CredentialChange,
  audit?: AuditContext,
): Promise<CredentialView> {
  const row = await findCredential(prisma, workspaceId, id);
  let sealedPart = {};
  if (change.data !== undefined) {
    if (!keys.ring) throw new CredentialsDisabled();
    const type = row.type as CredentialType;
    const merged = { ...joinCredential(row.fields as Record<string, unknown>, openSecret(keys, row)), ...change.data };
    const { fields, secret, last4 } = splitCredential(type, checkedData(type, merged));
    sealedPart = { fields, ...sealSecret(keys, { ...row, fields }, secret), last4 };
  }
  const updated = await prisma
    .$transaction(async (tx) => {
      const saved = await tx.credential.update({
        where: { id: row.id },
        data: { name: change.name, ...sealedPart, updatedBy: userId, updatedAt: clock.now() },
      });
      if (audit)
        await recordAudit(tx, clock, audit, {
          action: "credential.updated",
          object: { kind: "credential", id: row.id },
          // Which fields changed (a rotation names its fields), never their values.
          details: {
            name: saved.name,
            ...(change.name !== undefined && change.name !== row.name ? { renamed_from: row.name } : {}),
            ...(change.data !== undefined ? { fields_replaced: Object.keys(change.data).sort() } : {}),
          },
        });
      return saved;
    })
    .catch((error: unknown) => {
      throw nameTaken(error, change.name);
    });
  return credentialView(updated);
}
