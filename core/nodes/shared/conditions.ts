// Comparisons of the condition and branch nodes. Pure and deterministic. They run on the event loop
// of whichever process runs the node (the API's, under npm start), so their cost is linear in the
// size of the values compared (themselves bounded by the render's budget, template.ts), whatever
// their shape or depth: no recursion, and an object's keys are counted once per comparison.

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

/**
 * Deep equality of JSON values (numbers and numeric strings are not equal: no coercion), with the
 * key counts of objects already met: `contains` compares one value with every item of a list, and
 * counting that value's keys again for each item would make it quadratic.
 */
function equalsWith(keyCounts: Map<object, number>) {
  const keyCount = (value: object) => {
    let count = keyCounts.get(value);
    if (count === undefined) keyCounts.set(value, (count = Object.keys(value).length));
    return count;
  };
  return (a: unknown, b: unknown): boolean => {
    const pending: Array<[unknown, unknown]> = [[a, b]];
    while (pending.length > 0) {
      const [left, right] = pending.pop()!;
      if (left === right) continue;
      if (typeof left !== typeof right || left === null || right === null || typeof left !== "object") return false;
      if (Array.isArray(left) !== Array.isArray(right)) return false;
      if (Array.isArray(left)) {
        const other = right as unknown[];
        if (left.length !== other.length) return false;
        for (let i = left.length - 1; i >= 0; i -= 1) pending.push([left[i], other[i]]);
        continue;
      }
      const other = right as Record<string, unknown>;
      if (keyCount(left) !== keyCount(other)) return false;
      for (const [key, item] of Object.entries(left)) {
        if (!Object.hasOwn(other, key)) return false;
        pending.push([item, other[key]]);
      }
    }
    return true;
  };
}

/** Deep equality of JSON values (numbers and numeric strings are not equal: no coercion). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  return equalsWith(new Map())(a, b);
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
      const equals = equalsWith(new Map());
      const found =
        typeof left === "string"
          ? typeof right === "string" && left.includes(right)
          : Array.isArray(left) && left.some((item) => equals(item, right));
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
  const equals = equalsWith(new Map());
  const match = cases.find((candidate) => equals(candidate, value));
  return match === undefined ? DEFAULT_BRANCH : String(match);
}
