// The `fallbacks` setting of an ai.prompt node, an ai.agent node and an agent: the models tried,
// in order, when the primary's call fails in the end on a rate limit, a 5xx or a timeout
// (core/ai/model-fallbacks.ts calls them).
import { z } from "zod";
import { AI_PROVIDERS } from "../ai/providers.js";
import { credentialIdSchema } from "./credential-types.js";

export const MAX_FALLBACKS = 3;

export const modelFallbackSchema = z.strictObject({
  provider: z.enum(AI_PROVIDERS),
  model: z.string().min(1).max(200),
  credential_id: credentialIdSchema.optional(),
});

/** `fallbacks`: at most three models, tried in order. */
export const modelFallbacksSchema = z.array(modelFallbackSchema).max(MAX_FALLBACKS);
