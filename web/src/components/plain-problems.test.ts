import { describe, expect, it } from "vitest";
import { fieldProblem, plainMessage } from "./plain-problems";

describe("validation messages in plain words", () => {
  it("turns zod's wording into words a person uses", () => {
    expect(fieldProblem("URL", "Invalid input: expected string, received undefined")).toBe("URL is required");
    expect(fieldProblem("Timeout", "Invalid input: expected number, received string")).toBe("Timeout must be a number");
    expect(fieldProblem("Message", "Too small: expected string to have >=1 characters")).toBe(
      "Message must not be empty",
    );
    expect(fieldProblem("Attempts", "Too big: expected number to be <=20")).toBe("Attempts must be at most 20");
    expect(fieldProblem("Method", 'Invalid option: expected one of "GET"|"POST"|"PUT"')).toBe(
      "Method must be one of GET, POST, PUT",
    );
    expect(fieldProblem("URL", "Invalid URL")).toBe("URL must be a valid URL");
  });

  it("says when a template reads a node that does not run first", () => {
    expect(plainMessage('{{ nodes.fetch }}: "fetch" is not upstream of "set"')).toBe(
      'reads {{ nodes.fetch }}, but "fetch" does not run before "set"',
    );
  });

  it("keeps a message it has no rule for, after a colon", () => {
    expect(plainMessage('unknown node type "teleport"')).toBe('unknown node type "teleport"');
    expect(fieldProblem("Body", "unclosed {{ in the template")).toBe("Body: unclosed {{ in the template");
  });
});
