// The directory backend of object storage (OBJECT_STORAGE_DIR). Each workspace has a
// subdirectory; an object is two files named after the SHA-256 of its key, never after the key
// itself, so no key (`../x`, `/etc/passwd`, `C:\x`) can name a path outside that subdirectory:
//   <root>/<workspace id>/<sha256(key)>.json           metadata: key, content type, size, etag, times
//   <root>/<workspace id>/<sha256(key)>.<etag>.bin     the body
// The body file is named after its content, and the metadata is renamed into place after it:
// a reader never sees metadata whose body is not complete.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Clock } from "../../lib/clock.js";
import type { ObjectStore } from "../nodes/define-node.js";
import { checkKey, checkList, checkPut } from "./store-input.js";

interface ObjectMeta {
  key: string;
  contentType: string;
  size: number;
  etag: string;
  createdAt: string;
  updatedAt: string;
}

const WORKSPACE_DIR = /^[A-Za-z0-9_-]{1,128}$/;
const META_FILE = /^[0-9a-f]{64}\.json$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** Orders keys by their UTF-8 bytes, as PostgreSQL's "C" collation does. */
const compareKeys = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A workspace's subdirectory, and what its objects are written with. */
interface WorkspaceDir {
  dir: string;
  clock: Clock;
  maxBytes: number;
}

const nameOf = (key: string) => createHash("sha256").update(key).digest("hex");
const metaPath = ({ dir }: WorkspaceDir, name: string) => path.join(dir, `${name}.json`);
const bodyPath = ({ dir }: WorkspaceDir, name: string, etag: string) => path.join(dir, `${name}.${etag}.bin`);

async function readMeta(file: string): Promise<ObjectMeta | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as ObjectMeta;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Writes a file under a temporary name, then renames it into place (atomic on one filesystem). */
async function writeAtomically(file: string, data: Uint8Array | string) {
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, data, { flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

type Put = ObjectStore["put"];
type Get = ObjectStore["get"];
type List = ObjectStore["list"];

/** The body first, then the metadata over the old one, then the old body. */
export async function putObject(
  store: WorkspaceDir,
  key: Parameters<Put>[0],
  body: Parameters<Put>[1],
  options: Parameters<Put>[2] = {},
): ReturnType<Put> {
  const { contentType, etag } = checkPut(key, body, options.contentType, store.maxBytes);
  const name = nameOf(key);
  await mkdir(store.dir, { recursive: true });
  const previous = await readMeta(metaPath(store, name));
  await writeAtomically(bodyPath(store, name, etag), body);
  const now = store.clock.now().toISOString();
  const meta: ObjectMeta = {
    key,
    contentType,
    size: body.byteLength,
    etag,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
  await writeAtomically(metaPath(store, name), JSON.stringify(meta));
  if (previous && previous.etag !== etag) await rm(bodyPath(store, name, previous.etag), { force: true });
  return { key, size: body.byteLength, etag };
}

export async function getObject(store: WorkspaceDir, key: Parameters<Get>[0]): ReturnType<Get> {
  checkKey(key);
  const name = nameOf(key);
  // A concurrent put may replace the body between the two reads: read the metadata again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const meta = await readMeta(metaPath(store, name));
    if (!meta) return null;
    try {
      const body = new Uint8Array(await readFile(bodyPath(store, name, meta.etag)));
      return { body, contentType: meta.contentType, size: meta.size, etag: meta.etag };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  throw new Error(`The object "${key}" kept changing while it was read`);
}

/** Keys in byte order, from the metadata files (a missing subdirectory holds none). */
export async function listObjects(store: WorkspaceDir, options: Parameters<List>[0] = {}): ReturnType<List> {
  const { prefix, limit, after } = checkList(options);
  let files: string[];
  try {
    files = await readdir(store.dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const metas = await Promise.all(
    files.filter((file) => META_FILE.test(file)).map((file) => readMeta(path.join(store.dir, file))),
  );
  return metas
    .filter((meta): meta is ObjectMeta => meta !== undefined)
    .filter((meta) => meta.key.startsWith(prefix) && (after === undefined || compareKeys(meta.key, after) > 0))
    .sort((a, b) => compareKeys(a.key, b.key))
    .slice(0, limit)
    .map((meta) => ({
      key: meta.key,
      size: meta.size,
      contentType: meta.contentType,
      etag: meta.etag,
      updatedAt: meta.updatedAt,
    }));
}

export async function deleteObject(store: WorkspaceDir, key: string): Promise<boolean> {
  checkKey(key);
  const name = nameOf(key);
  const meta = await readMeta(metaPath(store, name));
  if (!meta) return false;
  await rm(metaPath(store, name), { force: true });
  await rm(bodyPath(store, name, meta.etag), { force: true });
  return true;
}

export function createDirectoryObjectStore(
  { root, clock, maxBytes }: { root: string; clock: Clock; maxBytes: number },
  workspaceId: string,
): ObjectStore {
  // Workspace ids are generated (ws_<hex>); anything else is a bug, not user input.
  if (!WORKSPACE_DIR.test(workspaceId)) throw new Error(`Unexpected workspace id "${workspaceId}"`);
  const store: WorkspaceDir = { dir: path.join(path.resolve(root), workspaceId), clock, maxBytes };
  return {
    put: (key, body, options) => putObject(store, key, body, options),
    get: (key) => getObject(store, key),
    list: (options) => listObjects(store, options),
    delete: (key) => deleteObject(store, key),
  };
}
