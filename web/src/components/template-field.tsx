// What a templated config field adds to the form: a live preview of its value against the sample
// (the worker's own engine renders it) and the references to complete inside {{ }}.
import type { TemplateScope } from "../../../core/flows/template";
import { completeTemplate, previewOf, type Completion } from "./expression-help";
import type { FormField } from "./config-fields";

/** How the editor helps a node's templated fields: the sample they read, and where the caret was last. */
export interface TemplateHelp {
  scope: TemplateScope | null;
  onFocus: (key: string, caret?: number) => void;
}

/** The value the field's text (as typed) gives with the sample: what a save would store, rendered. */
export function TemplatePreview({
  field,
  text,
  scope,
}: {
  field: FormField;
  text: string;
  scope: TemplateScope | null;
}) {
  if (!scope || !text.includes("{{")) return null;
  const preview = previewOf(field, text, scope);
  if ("error" in preview)
    return (
      <p className="field-error template-preview" data-preview={field.key}>
        {preview.error}
      </p>
    );
  return (
    <p className="template-preview" data-preview={field.key}>
      <span className="muted">With the sample: </span>
      {"missing" in preview ? (
        <em>nothing there in the sample</em>
      ) : (
        <code>{typeof preview.value === "string" ? preview.value : JSON.stringify(preview.value)}</code>
      )}
    </p>
  );
}

/**
 * What follows a reference picked at `at` to close its `{{`: " }}" when nothing after it does, a
 * space before a `}}` right after it (an editor that closed the braces as they were typed), else nothing.
 */
export function closingAfter(text: string, at: number): string {
  const after = text.slice(at);
  if (!/^\s*[A-Za-z0-9_$.\-[\]"]*\s*\}\}/.test(after)) return " }}";
  return after.startsWith("}}") ? " " : "";
}

/** The field's text with `option` chosen: the path typed so far replaced, and `}}` closed if it is not. */
export function applyCompletion(text: string, completion: Completion, option: string): string {
  const close = closingAfter(text, completion.to);
  return `${text.slice(0, completion.from)}${option}${close}${text.slice(completion.to)}`;
}

/** The completion at a text field's caret, or null. */
export const completionAt = (input: HTMLInputElement | HTMLTextAreaElement, scope: TemplateScope | null) =>
  completeTemplate(input.value, input.selectionStart ?? input.value.length, scope);

export function CompletionList(props: { completion: Completion; onPick: (option: string) => void }) {
  if (props.completion.options.length === 0) return null;
  return (
    <ul className="completions" role="listbox" aria-label="References">
      {props.completion.options.slice(0, 12).map((option) => (
        <li key={option} role="option" aria-selected={false}>
          <button
            type="button"
            // Picked before the field loses focus, so the caret is still where it was.
            onMouseDown={(event) => {
              event.preventDefault();
              props.onPick(option);
            }}
          >
            {option}
          </button>
        </li>
      ))}
    </ul>
  );
}
