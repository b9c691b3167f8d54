// Comparisons of the condition and branch nodes. Pure and deterministic: the workflow evaluates
// them itself, so a decision costs no activity.

export const CONDITION_OPERATORS = [
  "equals",
  "not_equals",
  "greater_than",
  "greater_or_equal",
  "less_than",
  "less_or_equal",
  "contains",
  "not_contains",
  "exists",
  "not_exists",
  "is_true",
  "is_false",
  "is_empty",
  "is_not_empty",
] as const;

export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Deep equality of JSON values (numbers and numeric strings are not equal: no coercion). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEquals(item, other[i]));
  }
  const left = Object.keys(a as object);
  const right = Object.keys(b as object);
  return (
    left.length === right.length &&
    left.every((key) => jsonEquals((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

function compare(left: unknown, right: unknown): number | undefined {
  if (typeof left === "number" && typeof right === "number") return left - right;
  if (typeof left === "string" && typeof right === "string") return left < right ? -1 : left > right ? 1 : 0;
  return undefined;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

export function evaluateCondition(left: unknown, operator: ConditionOperator, right?: unknown): boolean {
  switch (operator) {
    case "equals":
      return jsonEquals(left, right);
    case "not_equals":
      return !jsonEquals(left, right);
    case "greater_than":
      return (compare(left, right) ?? NaN) > 0;
    case "greater_or_equal":
      return (compare(left, right) ?? NaN) >= 0;
    case "less_than":
      return (compare(left, right) ?? NaN) < 0;
    case "less_or_equal":
      return (compare(left, right) ?? NaN) <= 0;
    case "contains":
    case "not_contains": {
      const found =
        typeof left === "string"
          ? typeof right === "string" && left.includes(right)
          : Array.isArray(left) && left.some((item) => jsonEquals(item, right));
      return operator === "contains" ? found : !found;
    }
    case "exists":
      return left !== undefined && left !== null;
    case "not_exists":
      return left === undefined || left === null;
    case "is_true":
      return left === true;
    case "is_false":
      return left === false;
    case "is_empty":
      return isEmpty(left);
    case "is_not_empty":
      return !isEmpty(left);
  }
}

export const DEFAULT_BRANCH = "default";

/** The first case equal to `value`, else "default". */
export function selectCase(value: unknown, cases: readonly unknown[]): string {
  const match = cases.find((candidate) => jsonEquals(candidate, value));
  return match === undefined ? DEFAULT_BRANCH : String(match);
}
