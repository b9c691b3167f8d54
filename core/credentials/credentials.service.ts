// A workspace's credentials: stored sealed (AES-256-GCM under SVC_ENCRYPTION_KEY's current key,
// its id kept with each value), shown without their secrets, opened only for the worker to apply
// them to a call. Each value is bound to its workspace, id, type and shown fields, so a value
// copied to another row, or a row whose token_url was changed in the database, does not open.
import type { z } from "zod";
import { canonicalJson } from "../../lib/canonical-json.js";
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createKeyRing, type KeyRing } from "../../lib/crypto/key-ring.js";
import { createSecretBox, parseSecretKey, type SecretBox } from "../../lib/crypto/secret-box.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import {
  CredentialInUse,
  CredentialNameTaken,
  CredentialNotFound,
  CredentialsDisabled,
  CredentialUnreadable,
  InvalidInput,
} from "../errors.js";
import type { AiProvider } from "../ai/providers.js";
import { credentialDataSchemas, joinCredential, splitCredential, type CredentialType } from "./credential-types.js";

/** key_id of a provider key stored before credentials existed: sealed with AI_KEYS_SECRET. */
export const LEGACY_AI_KEY_ID = "AI_KEYS_SECRET";

type CredentialRow = Awaited<ReturnType<PrismaClient["credential"]["findFirstOrThrow"]>>;

/** What anyone of the workspace may see of a credential: never a secret. */
export function credentialView(row: CredentialRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type as CredentialType,
    fields: row.fields as Record<string, unknown>,
    hint: row.last4 === null ? null : `…${row.last4}`,
    default_for: row.defaultFor,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    updated_at: row.updatedAt.toISOString(),
    updated_by: row.updatedBy,
  };
}

export type CredentialView = ReturnType<typeof credentialView>;

/** A credential with its secret, for the worker to apply to a call; never for an answer or a log. */
export interface OpenedCredential {
  id: string;
  type: CredentialType;
  data: Record<string, unknown>;
  /** Changes whenever the credential does (a rotation): caches of what it yields key on it. */
  revision: string;
}

export type NewCredential = {
  [T in CredentialType]: { name: string; type: T; data: z.input<(typeof credentialDataSchemas)[T]> };
}[CredentialType];

export interface CredentialChange {
  name?: string;
  /** Fields to replace, of the credential's own type; the others keep their values. */
  data?: Record<string, unknown>;
}

/** A reference to a credential from a flow's node, checked when the flow is saved. */
export interface CredentialReference {
  /** Where it is, e.g. `nodes[1].config.credential_id`. */
  path: string;
  id: string;
  /** The types the node accepts. */
  accepts: readonly string[];
  /** An ai_provider credential must hold a key of this provider. */
  provider?: AiProvider;
}

const PROVIDER_LABELS: Record<AiProvider, string> = { openai: "OpenAI", anthropic: "Anthropic" };

export interface CredentialsServiceDeps {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "SVC_ENCRYPTION_KEY" | "AI_KEYS_SECRET">;
}

export function createCredentialsService({ prisma, clock, config }: CredentialsServiceDeps) {
  const ring: KeyRing | undefined = config.SVC_ENCRYPTION_KEY ? createKeyRing(config.SVC_ENCRYPTION_KEY) : undefined;
  const legacyAiKeys: SecretBox | undefined = config.AI_KEYS_SECRET
    ? createSecretBox(parseSecretKey(config.AI_KEYS_SECRET)!)
    : undefined;

  type Bound = Pick<CredentialRow, "workspaceId" | "id" | "type"> & { fields: unknown };
  const contextOf = (row: Bound) =>
    ["credential", row.workspaceId, row.id, row.type, canonicalJson(row.fields)].join("\u0000");

  function seal(row: Bound, secret: Record<string, unknown>) {
    if (!ring) throw new CredentialsDisabled();
    return ring.seal(JSON.stringify(secret), contextOf(row));
  }

  function openSecret(row: CredentialRow): Record<string, unknown> {
    try {
      if (row.keyId === LEGACY_AI_KEY_ID) {
        if (!legacyAiKeys) throw new Error("it was stored with AI_KEYS_SECRET, which is not set");
        const { provider } = row.fields as { provider: string };
        return { api_key: legacyAiKeys.open(row.ciphertext, `${row.workspaceId}:${provider}`) };
      }
      if (!ring) throw new Error("SVC_ENCRYPTION_KEY is not set");
      return JSON.parse(ring.open(row, contextOf(row))) as Record<string, unknown>;
    } catch (error) {
      // Never the value: only why it does not open (a missing key, an altered value).
      const reason =
        error instanceof Error && /not set|lacks/.test(error.message)
          ? error.message
          : "it does not decrypt with its key (altered, or moved from another row)";
      throw new CredentialUnreadable(reason);
    }
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

  async function find(workspaceId: string, id: string): Promise<CredentialRow> {
    const row = await prisma.credential.findFirst({ where: { id, workspaceId } });
    if (!row) throw new CredentialNotFound();
    return row;
  }

  const nameTaken = (error: unknown, name: string | undefined) =>
    name !== undefined && (error as { code?: unknown }).code === "P2002" ? new CredentialNameTaken(name) : error;

  /** The flows of the workspace whose current definition names the credential. */
  async function flowsUsing(workspaceId: string, id: string) {
    // Ids are 96 random bits: their quoted text in a definition is a reference to them.
    return sqlQuery<{ id: string; name: string }>(
      prisma,
      Prisma.sql`SELECT id, name FROM flows
                 WHERE workspace_id = ${workspaceId} AND strpos(definition::text, ${JSON.stringify(id)}) > 0
                 ORDER BY name, id LIMIT 100`,
    );
  }

  const service = {
    /** Whether this server can seal new values (SVC_ENCRYPTION_KEY is set). */
    canStore: ring !== undefined,

    /** A page of the workspace's credentials in the order they were created (`after` the last one shown). */
    async list(
      workspaceId: string,
      query: { types?: readonly CredentialType[]; limit: number; after?: { createdAt: Date; id: string } },
    ): Promise<CredentialView[]> {
      const rows = await prisma.credential.findMany({
        where: {
          workspaceId,
          ...(query.types ? { type: { in: [...query.types] } } : {}),
          ...(query.after
            ? {
                OR: [
                  { createdAt: { gt: query.after.createdAt } },
                  { createdAt: query.after.createdAt, id: { gt: query.after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: query.limit,
      });
      return rows.map(credentialView);
    },

    async get(workspaceId: string, id: string): Promise<CredentialView> {
      return credentialView(await find(workspaceId, id));
    },

    async create(
      workspaceId: string,
      userId: string,
      input: NewCredential,
      options: { defaultFor?: AiProvider } = {},
    ): Promise<CredentialView> {
      const { fields, secret, last4 } = splitCredential(input.type, checkedData(input.type, input.data));
      const id = newId("cred");
      const sealed = seal({ workspaceId, id, type: input.type, fields }, secret);
      const now = clock.now();
      const row = await prisma.credential
        .create({
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
        })
        .catch((error: unknown) => {
          throw nameTaken(error, input.name);
        });
      return credentialView(row);
    },

    /** Renames, and replaces values (a rotation): `data` is merged over the stored values and checked whole. */
    async update(workspaceId: string, userId: string, id: string, change: CredentialChange): Promise<CredentialView> {
      const row = await find(workspaceId, id);
      let sealedPart = {};
      if (change.data !== undefined) {
        if (!ring) throw new CredentialsDisabled();
        const type = row.type as CredentialType;
        const merged = { ...joinCredential(row.fields as Record<string, unknown>, openSecret(row)), ...change.data };
        const { fields, secret, last4 } = splitCredential(type, checkedData(type, merged));
        sealedPart = { fields, ...seal({ ...row, fields }, secret), last4 };
      }
      const updated = await prisma.credential
        .update({
          where: { id: row.id },
          data: { name: change.name, ...sealedPart, updatedBy: userId, updatedAt: clock.now() },
        })
        .catch((error: unknown) => {
          throw nameTaken(error, change.name);
        });
      return credentialView(updated);
    },

    /** Deletes a credential; while flows name it, only with `force` (their runs then fail at that node). */
    async remove(workspaceId: string, id: string, options: { force?: boolean } = {}): Promise<void> {
      await find(workspaceId, id);
      if (!options.force) {
        const flows = await flowsUsing(workspaceId, id);
        if (flows.length > 0) throw new CredentialInUse(flows);
      }
      await prisma.credential.deleteMany({ where: { id, workspaceId } });
    },

    flowsUsing,

    /** The problems of a flow's references: each must name a credential of the workspace, of a type its node accepts. */
    async checkReferences(
      workspaceId: string,
      references: readonly CredentialReference[],
    ): Promise<Array<{ path: string; message: string }>> {
      if (references.length === 0) return [];
      const rows = await prisma.credential.findMany({
        where: { workspaceId, id: { in: [...new Set(references.map((r) => r.id))] } },
        select: { id: true, type: true, name: true, fields: true },
      });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return references.flatMap(({ path, id, accepts, provider }) => {
        const found = byId.get(id);
        if (!found) return [{ path, message: `no credential "${id}" in this workspace` }];
        if (!accepts.includes(found.type)) {
          return [
            {
              path,
              message: `"${found.name}" is a ${found.type} credential; this node takes ${accepts.join(", ")}`,
            },
          ];
        }
        const held = (found.fields as { provider?: string }).provider;
        if (provider && found.type === "ai_provider" && held !== provider) {
          return [{ path, message: `"${found.name}" holds a key for ${held}, not ${provider}` }];
        }
        return [];
      });
    },

    /** The credential with its secret, for the worker to apply to a call (CredentialNotFound once deleted). */
    async open(workspaceId: string, id: string): Promise<OpenedCredential> {
      const row = await find(workspaceId, id);
      return {
        id: row.id,
        type: row.type as CredentialType,
        data: joinCredential(row.fields as Record<string, unknown>, openSecret(row)),
        revision: `${row.updatedAt.getTime()}:${row.keyId}:${row.ciphertext.slice(-16)}`,
      };
    },

    /** The workspace's own key for a provider (the ai_provider credential AI nodes use when they name none). */
    async defaultAiKey(workspaceId: string, provider: AiProvider) {
      const row = await prisma.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
      return row ? { view: credentialView(row), apiKey: () => openSecret(row).api_key as string } : undefined;
    },

    /** Stores (or rotates) the workspace's own key for a provider. */
    async setDefaultAiKey(workspaceId: string, userId: string, provider: AiProvider, apiKey: string) {
      const existing = await prisma.credential.findFirst({ where: { workspaceId, defaultFor: provider } });
      if (existing) return service.update(workspaceId, userId, existing.id, { data: { api_key: apiKey } });
      const name = `${PROVIDER_LABELS[provider]} (workspace key)`;
      return service.create(
        workspaceId,
        userId,
        { name, type: "ai_provider", data: { provider, api_key: apiKey } },
        { defaultFor: provider },
      );
    },

    async removeDefaultAiKey(workspaceId: string, provider: AiProvider): Promise<boolean> {
      const { count } = await prisma.credential.deleteMany({ where: { workspaceId, defaultFor: provider } });
      return count > 0;
    },

    /**
     * Seals every value stored under an older key (or AI_KEYS_SECRET) again under the current key,
     * a batch at a time; a value that does not open is reported by id and left as it is.
     */
    async reencryptAll(options: { batchSize?: number } = {}) {
      if (!ring) throw new CredentialsDisabled();
      const batchSize = options.batchSize ?? 100;
      let reencrypted = 0;
      const unreadable: Array<{ id: string; reason: string }> = [];
      let afterId = "";
      for (;;) {
        const rows = await prisma.credential.findMany({
          where: { keyId: { not: ring.currentKeyId }, id: { gt: afterId } },
          orderBy: { id: "asc" },
          take: batchSize,
        });
        if (rows.length === 0) break;
        afterId = rows.at(-1)!.id;
        for (const row of rows) {
          try {
            const sealed = seal(row, openSecret(row));
            // Only if nobody changed it meanwhile (a rotation seals under the current key anyway).
            const { count } = await prisma.credential.updateMany({
              where: { id: row.id, keyId: row.keyId, ciphertext: row.ciphertext },
              data: sealed,
            });
            reencrypted += count;
          } catch (error) {
            unreadable.push({ id: row.id, reason: (error as Error).message });
          }
        }
      }
      const remaining = await prisma.credential.count({ where: { keyId: { not: ring.currentKeyId } } });
      return { currentKeyId: ring.currentKeyId, reencrypted, unreadable, remaining };
    },
  };
  return service;
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
