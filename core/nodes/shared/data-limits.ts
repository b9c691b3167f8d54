// Limits of the workspace data stores, shared by the data nodes' config schemas (early, clear
// errors when a flow is saved) and the stores in core/stores, which enforce them.

/** Keys of the key-value store and of object storage. */
export const MAX_KEY_LENGTH = 512;

/** A lowercase letter, then up to 62 lowercase letters, digits or _. */
export const TABLE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export const KV_LIMITS = {
  maxValueBytes: 1024 * 1024,
  /** Ten years: longer is "forever", which is what omitting the TTL means. */
  maxTtlSeconds: 10 * 365 * 86_400,
} as const;

export const DATA_TABLE_LIMITS = {
  maxRowsPerInsert: 1000,
  maxRowBytes: 1024 * 1024,
  maxInsertBytes: 16 * 1024 * 1024,
  defaultQueryLimit: 100,
  maxQueryLimit: 1000,
  maxOffset: 1_000_000,
} as const;

/** The object size limit is configuration (OBJECT_MAX_BYTES), not a constant. */
export const OBJECT_LIMITS = {
  defaultListLimit: 100,
  maxListLimit: 1000,
  maxContentTypeLength: 255,
} as const;
