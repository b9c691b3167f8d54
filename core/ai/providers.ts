// The language-model protocols the service speaks (kept apart from the SDKs, so the API process
// can validate provider names without loading them).
export const AI_PROVIDERS = ["openai", "anthropic"] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** Why a provider cannot be called: neither the workspace nor the server has its key. */
export const missingApiKeyMessage = (provider: AiProvider) =>
  `No API key for ${provider}: set the workspace's key or ${provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"}`;
