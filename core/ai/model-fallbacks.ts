// Model fallback: the models an ai.prompt node or an agent names to try, in order, when its own
// model's call fails in the end (after its retries) on a rate limit, a 5xx, a timeout or a lost
// connection. A refusal another model would meet too (400, 401, a bad request) does not fall back.
import { ProviderError, type AiProvider } from "./language-models.js";

/** A fallback model as a node or agent names it (its schema: core/contracts/model-fallbacks.ts). */
export interface ModelFallback {
  provider: AiProvider;
  model: string;
  credential_id?: string;
}

/** A model that was called and did not answer, and why (the provider's message; never a key). */
export interface TriedModel {
  provider: AiProvider;
  model: string;
  error: string;
}

/** Whether a call's failure, once the primary's retries are spent, hands over to the next model. */
export const fallsBack = (error: unknown): error is ProviderError => error instanceof ProviderError && error.retryable;

/**
 * Calls the fallbacks in order after the primary failed with `primaryError` (one that falls back):
 * the first to answer wins. Each fallback is called once; its failure of any kind (a refusal, a
 * missing or mismatched key) is recorded and the next is tried. Throws, when none answers, a
 * ProviderError (not retryable) naming every model tried.
 */
export async function callFallbacks<T>(
  primary: { provider: AiProvider; model: string },
  primaryError: ProviderError,
  fallbacks: readonly ModelFallback[],
  call: (fallback: ModelFallback) => Promise<T>,
  signal?: AbortSignal,
): Promise<{ answer: T; answered: ModelFallback; tried: TriedModel[] }> {
  const tried: TriedModel[] = [{ provider: primary.provider, model: primary.model, error: primaryError.message }];
  for (const fallback of fallbacks) {
    try {
      return { answer: await call(fallback), answered: fallback, tried };
    } catch (error) {
      // A cancelled run or a node out of time stops here: no further model is called.
      if (!(error instanceof Error) || signal?.aborted) throw error;
      tried.push({ provider: fallback.provider, model: fallback.model, error: error.message });
    }
  }
  const summary = tried.map((t) => `${t.provider}/${t.model}: ${t.error}`).join("; ");
  throw new ProviderError(`No model answered (${summary})`, false, primaryError.status);
}
