// Money as the usage pages show it: US dollars, with the cents of a cent when a figure is small.

/** A cost in US dollars: $0.0042 for small amounts, $12.34 for larger ones. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "—";
  if (usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  // Four significant digits below a dollar: a single call costs fractions of a cent.
  return `$${Number(usd.toPrecision(4))}`;
}

/** Tokens with thousands separated. */
export const formatTokens = (tokens: number) => tokens.toLocaleString("en-US");
