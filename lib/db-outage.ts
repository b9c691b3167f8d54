// A database that does not answer, told from one that refuses a statement, by the error alone (no
// database client here: the API's error handler uses it); and a write sent again until it answers.

// Errors that say the database did not answer (down, restarting, the connection lost), not that
// it refused the statement: connection-level errno codes and SQLSTATE classes 08 and 57P.
const UNAVAILABLE_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH"]);

/** The database did not answer: a statement sent again once it is back may succeed. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 5) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === "string" && (UNAVAILABLE_ERRNO.has(code) || code.startsWith("08") || code.startsWith("57P")))
    return true;
  if (typeof message === "string" && /Connection terminated|connect ECONNREFUSED/.test(message)) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/**
 * Runs `write`, and again while the database is unavailable (backing off up to 2 s), until it
 * answers, `deadline` (epoch ms) passes or `signal` aborts; any other error is thrown at once.
 */
export async function whileDatabaseUnavailable<T>(
  write: () => Promise<T>,
  { deadline, signal }: { deadline: number; signal?: AbortSignal },
): Promise<T> {
  for (let waitMs = 250; ; waitMs = Math.min(waitMs * 2, 2000)) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || signal?.aborted || Date.now() + waitMs > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
