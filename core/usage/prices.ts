// The price table: what a model's tokens cost, in US dollars per million input and output tokens.
// Shipped defaults for the models we name (the providers' published list prices when this was
// written; a workspace overrides any of them, or prices a model that has none, in model_prices).
// Pure: the API and the worker share it.
import { Prisma } from "../../lib/db.js";
import type { AiProvider } from "../ai/providers.js";

export interface ModelPriceEntry {
  provider: AiProvider;
  model: string;
  /** USD per million input tokens. */
  input_per_mtok: number;
  /** USD per million output tokens. */
  output_per_mtok: number;
}

export const DEFAULT_PRICES: readonly ModelPriceEntry[] = [
  { provider: "openai", model: "gpt-4o", input_per_mtok: 2.5, output_per_mtok: 10 },
  { provider: "openai", model: "gpt-4o-mini", input_per_mtok: 0.15, output_per_mtok: 0.6 },
  { provider: "openai", model: "gpt-4.1", input_per_mtok: 2, output_per_mtok: 8 },
  { provider: "openai", model: "gpt-4.1-mini", input_per_mtok: 0.4, output_per_mtok: 1.6 },
  { provider: "openai", model: "gpt-4.1-nano", input_per_mtok: 0.1, output_per_mtok: 0.4 },
  { provider: "openai", model: "o3", input_per_mtok: 2, output_per_mtok: 8 },
  { provider: "openai", model: "o3-mini", input_per_mtok: 1.1, output_per_mtok: 4.4 },
  { provider: "openai", model: "o4-mini", input_per_mtok: 1.1, output_per_mtok: 4.4 },
  { provider: "anthropic", model: "claude-opus-4", input_per_mtok: 15, output_per_mtok: 75 },
  { provider: "anthropic", model: "claude-sonnet-4", input_per_mtok: 3, output_per_mtok: 15 },
  { provider: "anthropic", model: "claude-3-7-sonnet", input_per_mtok: 3, output_per_mtok: 15 },
  { provider: "anthropic", model: "claude-3-5-sonnet", input_per_mtok: 3, output_per_mtok: 15 },
  { provider: "anthropic", model: "claude-3-5-haiku", input_per_mtok: 0.8, output_per_mtok: 4 },
];

/**
 * The entry that prices `model` of `provider` in `table`: its own, else the longest entry that
 * names it up to a dash (a dated snapshot, `gpt-4o-mini-2024-07-18`, costs what `gpt-4o-mini`
 * does; `claude-sonnet-4-20250514` what `claude-sonnet-4` does). Undefined: the model has no price.
 */
export function priceOf<E extends { provider: string; model: string }>(
  table: readonly E[],
  provider: string,
  model: string,
): E | undefined {
  let best: E | undefined;
  for (const entry of table) {
    if (entry.provider !== provider) continue;
    if (entry.model === model) return entry;
    if (model.startsWith(`${entry.model}-`) && (!best || entry.model.length > best.model.length)) best = entry;
  }
  return best;
}

/** A call's cost in USD at a price, exactly (decimal): tokens × price per million / 1,000,000. */
export function costOf(
  price: { input_per_mtok: number | Prisma.Decimal; output_per_mtok: number | Prisma.Decimal },
  usage: { input_tokens: number; output_tokens: number },
): Prisma.Decimal {
  return new Prisma.Decimal(price.input_per_mtok)
    .mul(usage.input_tokens)
    .add(new Prisma.Decimal(price.output_per_mtok).mul(usage.output_tokens))
    .div(1_000_000);
}
