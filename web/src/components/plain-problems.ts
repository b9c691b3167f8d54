// The API's validation messages (zod's, and the flow checker's) in plain words, to follow a
// field's label ("URL is required") or to stand alone.

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

const RULES: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^Invalid input: expected \w+, received undefined$/, () => "is required"],
  [/^Invalid input: expected (\w+), received \w+$/, (type) => `must be ${TYPE_WORDS[type!] ?? type}`],
  [/^Too small: expected string to have >=1 characters?$/, () => "must not be empty"],
  [/^Too small: expected string to have >=(\d+) characters$/, (n) => `needs at least ${n} characters`],
  [/^Too big: expected string to have <=(\d+) characters$/, (n) => `is too long: at most ${n} characters`],
  [/^Too small: expected number to be >=(\S+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected number to be >(\S+)$/, (n) => `must be more than ${n}`],
  [/^Too big: expected number to be <=(\S+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected number to be <(\S+)$/, (n) => `must be less than ${n}`],
  [/^Too small: expected array to have >=(\d+) items?$/, (n) => `needs at least ${n} item${n === "1" ? "" : "s"}`],
  [/^Too big: expected array to have <=(\d+) items?$/, (n) => `takes at most ${n} item${n === "1" ? "" : "s"}`],
  [
    /^Invalid option: expected one of (.+)$/,
    (options) =>
      `must be one of ${options!
        .split("|")
        .map((o) => o.replace(/^"|"$/g, ""))
        .join(", ")}`,
  ],
  [/^Invalid (?:URL|url)$/, () => "must be a valid URL"],
  [/^Invalid input$/, () => "is not valid"],
  [/^Unrecognized keys?: (.+)$/, (keys) => `has settings this node does not know: ${keys!.replaceAll('"', "")}`],
  [/^unknown config key for (\S+)$/, (type) => `is not a setting of ${type} nodes`],
  [
    /^\{\{ nodes\.(\S+) \}\}: "\S+" is not upstream of "(\S+)"$/,
    (target, node) => `reads {{ nodes.${target} }}, but "${target}" does not run before "${node}"`,
  ],
];

/** A message in plain words; one with no rule is kept as the API wrote it. */
export function plainMessage(message: string): string {
  for (const [pattern, rewrite] of RULES) {
    const match = pattern.exec(message);
    if (match) return rewrite(...match.slice(1));
  }
  return message;
}

/** A problem of `subject` as a sentence: "URL is required", or "URL: <a message with no rule>". */
export function fieldProblem(subject: string, message: string): string {
  const plain = plainMessage(message);
  return /^(is|must|needs|has|reads|takes)\b/.test(plain) ? `${subject} ${plain}` : `${subject}: ${plain}`;
}
