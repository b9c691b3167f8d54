// Temporal payloads at rest: every payload a client or worker sends to Temporal (workflow inputs,
// activity inputs and results, node outputs, failures' details) is sealed with AES-256-GCM under
// the key ring of SVC_ENCRYPTION_KEY before it leaves the process, so Temporal's store and its UI
// hold ciphertext. The whole original payload (its metadata and data, as protobuf) is the
// plaintext; the sealed one reads `encoding: binary/encrypted`, with the key's id and the owner
// (the workflow it belongs to) in clear metadata, both bound to the ciphertext as associated data.
// Payloads without that encoding (histories recorded before, text marked for operators) decode as
// they are.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Payload, PayloadCodec, SerializationContext } from "@temporalio/common";
import proto from "@temporalio/proto";
import { UnknownKeyError, type RingKey } from "./key-ring.js";

export const ENCRYPTED_ENCODING = "binary/encrypted";
/** Clear metadata of a sealed payload. */
export const SEALED_METADATA = {
  encoding: "encoding",
  keyId: "encryption-key-id",
  /** The workflow the payload belongs to (Temporal's serialization context), when known. */
  workflowId: "svc-workflow-id",
  /** The workspace a payload sealed through the codec endpoint belongs to. */
  workspaceId: "svc-workspace-id",
} as const;

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const AAD_PREFIX = "svc-temporal-payload/v1";

/** Whom a sealed payload belongs to: a workflow, a workspace, or nobody known. */
export type PayloadOwner = { workflowId: string } | { workspaceId: string } | Record<string, never>;

/** What the clear metadata of a sealed payload says. */
export interface SealedPayloadInfo {
  keyId: string;
  workflowId?: string;
  workspaceId?: string;
}

export interface EncryptionCodec extends PayloadCodec {
  /** Whether it seals: false without a key (payloads then pass through, and sealed ones fail to decode). */
  readonly sealing: boolean;
  /** Seals payloads for an owner of the caller's choosing (the codec endpoint: the session's workspace). */
  encodeFor(owner: PayloadOwner, payloads: Payload[]): Promise<Payload[]>;
}

const text = (value: Uint8Array | null | undefined) =>
  value === undefined || value === null ? undefined : Buffer.from(value).toString("utf8");

/** The clear metadata of a sealed payload; undefined for a payload that is not sealed. */
export function sealedPayloadInfo(payload: Payload): SealedPayloadInfo | undefined {
  const metadata = payload.metadata ?? {};
  if (text(metadata[SEALED_METADATA.encoding]) !== ENCRYPTED_ENCODING) return undefined;
  const workflowId = text(metadata[SEALED_METADATA.workflowId]);
  const workspaceId = text(metadata[SEALED_METADATA.workspaceId]);
  return {
    keyId: text(metadata[SEALED_METADATA.keyId]) ?? "",
    ...(workflowId !== undefined ? { workflowId } : {}),
    ...(workspaceId !== undefined ? { workspaceId } : {}),
  };
}

/** Associated data: the format, the key and the owner, so that none can be swapped in the metadata. */
function associatedData({ keyId, workflowId, workspaceId }: SealedPayloadInfo): Buffer {
  return Buffer.from([AAD_PREFIX, keyId, workflowId ?? "", workspaceId ?? ""].join("\u0000"), "utf8");
}

function ownerOf(context: SerializationContext | undefined): PayloadOwner {
  return context?.workflowId ? { workflowId: context.workflowId } : {};
}

/**
 * The codec of every Temporal client and worker of the service. The first key of `keys` seals,
 * every key opens what it sealed. `leavePlain` names payloads that stay readable (text for
 * operators: a run's summary); payloads already sealed are not sealed twice.
 */
export function createEncryptionCodec({
  keys,
  leavePlain = () => false,
}: {
  keys: readonly RingKey[];
  leavePlain?: (payload: Payload) => boolean;
}): EncryptionCodec {
  const byId = new Map(keys.map(({ id, key }) => [id, key]));
  const current = keys[0];

  function seal(payload: Payload, owner: PayloadOwner): Payload {
    if (!current || leavePlain(payload) || sealedPayloadInfo(payload)) return payload;
    const info: SealedPayloadInfo = { keyId: current.id, ...owner };
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", current.key, nonce);
    cipher.setAAD(associatedData(info));
    const body = Buffer.concat([cipher.update(PayloadMessage.encode(payload).finish()), cipher.final()]);
    const metadata: Record<string, Uint8Array> = {
      [SEALED_METADATA.encoding]: Buffer.from(ENCRYPTED_ENCODING),
      [SEALED_METADATA.keyId]: Buffer.from(info.keyId),
    };
    if (info.workflowId !== undefined) metadata[SEALED_METADATA.workflowId] = Buffer.from(info.workflowId);
    if (info.workspaceId !== undefined) metadata[SEALED_METADATA.workspaceId] = Buffer.from(info.workspaceId);
    return { metadata, data: Buffer.concat([nonce, cipher.getAuthTag(), body]) };
  }

  function open(payload: Payload): Payload {
    const info = sealedPayloadInfo(payload);
    if (!info) return payload;
    const key = byId.get(info.keyId);
    if (!key) {
      throw new UnknownKeyError(
        byId.size === 0
          ? `A Temporal payload is encrypted under key "${info.keyId}", but SVC_ENCRYPTION_KEY is not set`
          : `A Temporal payload is encrypted under key "${info.keyId}", which SVC_ENCRYPTION_KEY lacks`,
      );
    }
    const raw = Buffer.from(payload.data ?? new Uint8Array());
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error("A Temporal payload's ciphertext is truncated");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(associatedData(info));
    decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
    return PayloadMessage.decode(plaintext);
  }

  return {
    sealing: current !== undefined,
    async encode(payloads, context) {
      const owner = ownerOf(context);
      return payloads.map((payload) => seal(payload, owner));
    },
    async encodeFor(owner, payloads) {
      return payloads.map((payload) => seal(payload, owner));
    },
    async decode(payloads) {
      return payloads.map(open);
    },
  };
}
