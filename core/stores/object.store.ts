// Object storage of one workspace (env.objects): bodies addressed by key, with a content type
// and a SHA-256 etag. Two backends behind one interface: PostgreSQL (stored_objects, the
// default) and a directory (OBJECT_STORAGE_DIR, see object-directory.store.ts).
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { Prisma, type PrismaClient } from "../../lib/db.js";
import type { ObjectStore } from "../nodes/define-node.js";
import { createDirectoryObjectStore } from "./object-directory.store.js";
import { checkKey, checkList, checkPut } from "./store-input.js";

export type ObjectStoreConfig = Pick<Config, "OBJECT_STORAGE_DIR" | "OBJECT_MAX_BYTES">;

export interface ObjectStoreDeps {
  prisma: Pick<PrismaClient, "storedObject" | "$queryRaw">;
  clock: Clock;
  config: ObjectStoreConfig;
}

/** The backend the configuration selects. */
export function createObjectStore(deps: ObjectStoreDeps, workspaceId: string): ObjectStore {
  const { OBJECT_STORAGE_DIR: dir, OBJECT_MAX_BYTES: maxBytes } = deps.config;
  return dir
    ? createDirectoryObjectStore({ root: dir, clock: deps.clock, maxBytes }, workspaceId)
    : createPostgresObjectStore({ prisma: deps.prisma, clock: deps.clock, maxBytes }, workspaceId);
}

export function createPostgresObjectStore(
  { prisma, clock, maxBytes }: { prisma: ObjectStoreDeps["prisma"]; clock: Clock; maxBytes: number },
  workspaceId: string,
): ObjectStore {
  const where = (key: string) => ({ workspaceId_key: { workspaceId, key } });

  return {
    async put(key, body, options = {}) {
      const { contentType, etag } = checkPut(key, body, options.contentType, maxBytes);
      const now = clock.now();
      const fields = { contentType, size: body.byteLength, etag, body: new Uint8Array(body), updatedAt: now };
      await prisma.storedObject.upsert({
        where: where(key),
        create: { workspaceId, key, createdAt: now, ...fields },
        update: fields,
      });
      return { key, size: body.byteLength, etag };
    },

    async get(key) {
      checkKey(key);
      const object = await prisma.storedObject.findUnique({
        where: where(key),
        select: { body: true, contentType: true, size: true, etag: true },
      });
      return object && { body: object.body, contentType: object.contentType, size: object.size, etag: object.etag };
    },

    async list(options = {}) {
      const { prefix, limit, after } = checkList(options);
      // Byte order of keys (COLLATE "C"), as the directory backend sorts; starts_with takes the
      // prefix literally, where LIKE would read % and _ as wildcards.
      const rows = await prisma.$queryRaw<
        Array<{ key: string; size: number; content_type: string; etag: string; updated_at: Date }>
      >`
        SELECT key, size, content_type, etag, updated_at FROM stored_objects
        WHERE workspace_id = ${workspaceId} AND starts_with(key, ${prefix})
          ${after === undefined ? Prisma.empty : Prisma.sql`AND key COLLATE "C" > ${after}`}
        ORDER BY key COLLATE "C"
        LIMIT ${limit}`;
      return rows.map((row) => ({
        key: row.key,
        size: row.size,
        contentType: row.content_type,
        etag: row.etag,
        updatedAt: row.updated_at.toISOString(),
      }));
    },

    async delete(key) {
      checkKey(key);
      const { count } = await prisma.storedObject.deleteMany({ where: { workspaceId, key } });
      return count > 0;
    },
  };
}
