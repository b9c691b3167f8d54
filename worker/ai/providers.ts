// The language-model protocols the service speaks (kept apart from the SDKs, so the API process
// can validate provider names without loading them).
export const AI_PROVIDERS = ["openai", "anthropic"] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];
