import type { JsonSeal } from "../../../lib/crypto/sealed-json.js";
import { derivedId } from "../../../lib/ids.js";
import type { PrismaClient } from "../../../lib/db.js";
import { isBlobRef, type BlobRef } from "../../contracts/run-flow.js";

export const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

function holdsBlobRef(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (isBlobRef(value)) return true;
  return (Array.isArray(value) ? value : Object.values(value)).some(holdsBlobRef);
}

/**
 * Large node outputs live in run_blobs and travel through Temporal as { $blob, bytes }, so a
 * big output never breaks the workflow's payload limits. Stored sealed with `seal`, which it also
 * lends to the run's other records (see finalizeRunRecord).
 */
export function createBlobStore({
  prisma,
  offloadBytes,
  seal,
}: {
  prisma: Pick<PrismaClient, "runBlob">;
  offloadBytes: number;
  /** How run payloads are stored (sealed under SVC_ENCRYPTION_KEY when it is set). */
  seal: JsonSeal;
}) {
  async function load(ref: BlobRef): Promise<unknown> {
    const blob = await prisma.runBlob.findUnique({ where: { id: ref.$blob }, select: { data: true } });
    if (!blob) throw new Error(`Output ${ref.$blob} is missing`);
    return seal.open(blob.data);
  }

  // The async twin of replaceBlobRefs (each reference loaded), reached only when one is inside.
  async function resolveRefs(value: unknown): Promise<unknown> {
    if (isBlobRef(value)) return load(value);
    if (Array.isArray(value)) return Promise.all(value.map(resolveRefs));
    if (value !== null && typeof value === "object") {
      const entries = await Promise.all(
        Object.entries(value).map(async ([key, item]) => [key, await resolveRefs(item)] as const),
      );
      return Object.fromEntries(entries);
    }
    return value;
  }

  return {
    seal,
    /** The output itself when small, else a reference to where it was stored. */
    async offload(runId: string, nodeId: string, output: unknown): Promise<unknown> {
      if (output === undefined || isBlobRef(output)) return output ?? null;
      const bytes = jsonBytes(output);
      if (bytes <= offloadBytes) return output;
      // Content-addressed per run and node: a retried attempt writes the same row.
      const id = derivedId("blob", [runId, nodeId, JSON.stringify(output)], 32);
      await prisma.runBlob.upsert({
        where: { id },
        create: { id, runId, nodeId, data: seal.seal(output) as object, bytes, createdAt: new Date() },
        update: {},
      });
      return { $blob: id, bytes } satisfies BlobRef;
    },

    /** Replaces every reference inside a value by the output it stands for. */
    resolve(value: unknown): Promise<unknown> {
      // Most values hold no reference: they are returned as they are, without a copy.
      return Promise.resolve(holdsBlobRef(value) ? resolveRefs(value) : value);
    },
  };
}

export type BlobStore = ReturnType<typeof createBlobStore>;

/** The value with each blob reference inside it replaced; the value itself (no copy) when it holds none. */
export function replaceBlobRefs(value: unknown, replace: (ref: BlobRef) => unknown): unknown {
  if (!holdsBlobRef(value)) return value;
  const walk = (item: unknown): unknown => {
    if (isBlobRef(item)) return replace(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    }
    return item;
  };
  return walk(value);
}
