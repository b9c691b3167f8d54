// Run payloads at rest in PostgreSQL (a run's input, output and error, its steps' outputs and
// errors, stored large outputs): each value is stored as a JSON object that holds it sealed with
// AES-256-GCM under the current key of SVC_ENCRYPTION_KEY, so a database dump shows the shape of
// the records (ids, statuses, times) but no payload. Values stored before (plain JSON) read as they
// are; without a key nothing is sealed, and a sealed value does not open.
import { createKeyRing, type KeyRing, type RingKey } from "./key-ring.js";

/** The marker of a sealed value (`{"$sealed": "v1", key, data}`); clear fields beside it (`handled` of a step error) survive. */
export const SEALED_MARKER = "$sealed";
export const SEALED_FORMAT = "v1";
const CONTEXT = "svc-run-payload/v1";
/** How sealed text starts: `$sealed:v1:<key id>:<ciphertext>`. */
const TEXT_PREFIX = `${SEALED_MARKER}:${SEALED_FORMAT}:`;

/** How text sealed under the key `keyId` starts. */
export const sealedTextPrefix = (keyId: string) => `${TEXT_PREFIX}${keyId}:`;

export interface SealedJson {
  [SEALED_MARKER]: typeof SEALED_FORMAT;
  key: string;
  data: string;
}

export interface JsonSeal {
  /** The id of the key new values are sealed under; undefined without a key (values are then stored plain). */
  readonly keyId: string | undefined;
  /** Whether a stored value is sealed under the current key (null: nothing to seal). */
  isCurrent(stored: unknown): boolean;
  /** Whether stored text is sealed under the current key. */
  isCurrentText(stored: string): boolean;
  /** The value as stored: sealed, or as it is without a key. null and undefined stay as they are. */
  seal<T>(value: T): T | SealedJson;
  /** The value a stored one holds: opened when sealed, as it is when plain. Throws when it does not open. */
  open(stored: unknown): unknown;
  /** Text as stored in a text column (a log entry's message): sealed, or as it is without a key. */
  sealText(text: string): string;
  /** The text a stored one holds: opened when sealed, as it is when plain. */
  openText(stored: string): string;
}

export class SealedJsonUnreadable extends Error {
  override name = "SealedJsonUnreadable";
}

export function isSealedJson(value: unknown): value is SealedJson {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    (value as Record<string, unknown>)[SEALED_MARKER] === SEALED_FORMAT &&
    typeof (value as Record<string, unknown>).key === "string" &&
    typeof (value as Record<string, unknown>).data === "string"
  );
}

export function createJsonSeal(keys: readonly RingKey[] | undefined): JsonSeal {
  const ring: KeyRing | undefined = keys && keys.length > 0 ? createKeyRing(keys) : undefined;

  const openSealed = (keyId: string, ciphertext: string): string => {
    if (!ring) throw new SealedJsonUnreadable("A stored run payload is sealed, and SVC_ENCRYPTION_KEY is not set");
    try {
      return ring.open({ keyId, ciphertext }, CONTEXT);
    } catch (error) {
      throw new SealedJsonUnreadable(
        error instanceof Error && error.name === "UnknownKeyError"
          ? error.message
          : "A stored run payload does not open: it was altered or sealed under another key",
      );
    }
  };

  return {
    keyId: ring?.currentKeyId,
    isCurrent: (stored) =>
      stored === null || stored === undefined || (isSealedJson(stored) && stored.key === ring?.currentKeyId),
    isCurrentText: (stored) => ring !== undefined && stored.startsWith(sealedTextPrefix(ring.currentKeyId)),
    seal(value) {
      if (!ring || value === null || value === undefined) return value;
      const { keyId, ciphertext } = ring.seal(JSON.stringify(value), CONTEXT);
      return { [SEALED_MARKER]: SEALED_FORMAT, key: keyId, data: ciphertext };
    },
    open(stored) {
      if (!isSealedJson(stored)) return stored;
      const plain: unknown = JSON.parse(openSealed(stored.key, stored.data));
      const {
        [SEALED_MARKER]: _marker,
        key: _key,
        data: _data,
        ...clear
      } = stored as unknown as Record<string, unknown>;
      // Fields written beside the sealed value (a handled step error's `handled`) are merged back.
      return Object.keys(clear).length > 0 && plain !== null && typeof plain === "object" && !Array.isArray(plain)
        ? { ...plain, ...clear }
        : plain;
    },
    sealText(text) {
      if (!ring) return text;
      const { keyId, ciphertext } = ring.seal(text, CONTEXT);
      return `${sealedTextPrefix(keyId)}${ciphertext}`;
    },
    openText(stored) {
      if (!stored.startsWith(TEXT_PREFIX)) return stored;
      const rest = stored.slice(TEXT_PREFIX.length);
      const colon = rest.indexOf(":");
      return openSealed(rest.slice(0, colon), rest.slice(colon + 1));
    },
  };
}

/** Without a key: every value stored and read as it is. */
export const plainJson: JsonSeal = createJsonSeal(undefined);
