// The flows' domain errors (core/errors.ts's kinds; the API's one error handler maps them).
import { DomainError } from "../errors.js";

/** A definition that does not validate, or names credentials the workspace lacks: every problem, under `definition.`. */
export class InvalidDefinition extends DomainError {
  override name = "InvalidDefinition";
  constructor(problems: Array<{ path: string; message: string }>) {
    super("invalid", "invalid_definition", "The flow definition is invalid", {
      details: problems.map((p) => ({ path: p.path ? `definition.${p.path}` : "definition", message: p.message })),
    });
  }
}

export class TemplateNotFound extends DomainError {
  override name = "TemplateNotFound";
  constructor(template: string) {
    super("not_found", "template_not_found", `No template "${template}"`);
  }
}

/** An update made against a version the flow has moved past. */
export class VersionConflict extends DomainError {
  override name = "VersionConflict";
  constructor(edited: number, current: number) {
    super("conflict", "version_conflict", `This update edits version ${edited}; the flow is at version ${current}`, {
      current_version: current,
    });
  }
}

export class FlowVersionNotFound extends DomainError {
  override name = "FlowVersionNotFound";
  constructor(flowId: string, version: number) {
    super("not_found", "not_found", `Flow ${flowId} has no version ${version}`);
  }
}
