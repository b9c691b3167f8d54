// A node's config form, generated from its catalog config_schema (react-hook-form: one registered
// field per config key; CodeMirror fields through a Controller).
import { useMemo, useState } from "react";
import { Controller, useForm, type FieldErrors } from "react-hook-form";
import type { ConfigSchema, Credential } from "../types";
import { LazyCodeEditor } from "./lazy-code-editor";
import { formFields, parseFieldInput, type FormField } from "./config-fields";
import { completeTemplate, type Completion } from "./expression-help";
import { applyCompletion, completionAt, CompletionList, TemplatePreview, type TemplateHelp } from "./template-field";

const TEMPLATE_HINT =
  "Templates: {{ input.field }} reads the node's input, {{ nodes.<id>.field }} an earlier node's output.";

/** What the controls hold: the text typed (a checkbox's state for booleans), keyed by config key. */
type FormValues = Record<string, string | boolean>;

const textOf = (value: string | boolean | undefined) => (typeof value === "boolean" ? String(value) : (value ?? ""));

/** The problems the API reported, as the form's errors (shown until the field is edited). */
function serverErrors(problems: Record<string, string> | undefined): FieldErrors<FormValues> | undefined {
  if (!problems) return undefined;
  return Object.fromEntries(
    Object.entries(problems).map(([key, message]) => [key, { type: "server", message }]),
  ) as FieldErrors<FormValues>;
}

/** What a credential field offers: none, the workspace's credentials of its types, and the one chosen. */
export function credentialChoices(
  credentials: Credential[] | undefined,
  types: readonly string[],
  chosen: string,
): Array<{ value: string; label: string }> {
  const offered = (credentials ?? [])
    .filter((c) => types.includes(c.type))
    .map((c) => ({ value: c.id, label: `${c.name} (${c.type}${c.hint ? ` ${c.hint}` : ""})` }));
  const known = !chosen || offered.some((choice) => choice.value === chosen);
  // While the list loads the id stands alone; once loaded, an id not in it was deleted (or is another type).
  const missing = known ? [] : [{ value: chosen, label: credentials ? `missing credential ${chosen}` : chosen }];
  return [{ value: "", label: "(none)" }, ...missing, ...offered];
}

export function ConfigForm(props: {
  schema: ConfigSchema | undefined;
  config: Record<string, unknown>;
  /** Problems the API reported, keyed by config key. */
  problems?: Record<string, string>;
  onChange: (config: Record<string, unknown>) => void;
  /** The workspace's credentials, offered by fields that take one (undefined while loading). */
  credentials?: Credential[];
  /** Prefixes the controls' ids: two forms of one node (config, settings) may share a key. */
  idPrefix?: string;
  /** The sample templated fields are previewed and completed against (the editor's input panel). */
  templates?: TemplateHelp;
}) {
  const idOf = (key: string) => `${props.idPrefix ?? "field"}-${key}`;
  // The editor keys the form by node: what is typed stays as typed, and another node starts afresh.
  const fields = formFields(props.schema, props.config);
  const errors = useMemo(() => serverErrors(props.problems), [props.problems]);
  const form = useForm<FormValues>({
    mode: "onChange",
    defaultValues: Object.fromEntries(fields.map((f) => [f.key, f.type === "boolean" ? f.text === "true" : f.text])),
    errors,
    shouldFocusError: false,
  });
  // The references offered at a templated text field's caret.
  const [completing, setCompleting] = useState<{ key: string; completion: Completion } | null>(null);
  if (fields.length === 0) return <p className="muted">This node has no settings.</p>;

  const validate = (field: FormField) => (value: string | boolean) => {
    const parsed = parseFieldInput(field, textOf(value));
    return parsed.ok || parsed.error;
  };
  /** A change that parses becomes the node's config; one that does not shows its error instead. */
  const emit = (field: FormField, value: string | boolean) => {
    const parsed = parseFieldInput(field, textOf(value));
    if (!parsed.ok) return;
    const next = { ...props.config };
    if (parsed.value === undefined) delete next[field.key];
    else next[field.key] = parsed.value;
    props.onChange(next);
  };

  /** A templated text field's caret moved: the editor learns where, and completion follows it. */
  const caretMoved = (field: FormField, input: HTMLInputElement) => {
    props.templates?.onFocus(field.key, input.selectionStart ?? undefined);
    const completion = props.templates ? completionAt(input, props.templates.scope) : null;
    setCompleting(completion && completion.options.length > 0 ? { key: field.key, completion } : null);
  };
  const pick = (field: FormField, option: string) => {
    if (!completing) return;
    const text = applyCompletion(textOf(form.getValues(field.key)), completing.completion, option);
    form.setValue(field.key, text, { shouldValidate: true });
    emit(field, text);
    setCompleting(null);
  };

  const control = (field: FormField) => {
    const id = idOf(field.key);
    const registered = () =>
      form.register(field.key, {
        validate: validate(field),
        onChange: () => emit(field, form.getValues(field.key)),
      });
    if (field.credential_types) {
      const types = field.credential_types;
      const choices = credentialChoices(props.credentials, types, field.text);
      return (
        <select id={id} defaultValue={field.text} data-credential-types={types.join(",")} {...registered()}>
          {/* One keyed list: the chosen option keeps its element when the list arrives, and stays selected. */}
          {choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      );
    }
    if (field.type === "boolean") {
      return <input id={id} type="checkbox" defaultChecked={field.text === "true"} {...registered()} />;
    }
    if (field.options && field.type === "string") {
      return (
        <select id={id} defaultValue={field.text} {...registered()}>
          {!field.required && <option value="">(none)</option>}
          {field.options.map(String).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
    }
    if (field.type === "json" || field.type === "code") {
      return (
        <Controller
          name={field.key}
          control={form.control}
          rules={{ validate: validate(field) }}
          render={({ field: controlled }) => (
            <div
              className="code-field"
              data-field={field.key}
              data-type={field.type}
              onFocusCapture={() => props.templates?.onFocus(field.key)}
            >
              <LazyCodeEditor
                id={id}
                value={textOf(controlled.value)}
                label={field.label}
                language={field.type === "json" ? "json" : "javascript"}
                placeholder={field.placeholder}
                completions={
                  props.templates && field.templated
                    ? (text, caret) => completeTemplate(text, caret, props.templates!.scope)
                    : undefined
                }
                onChange={(text) => {
                  controlled.onChange(text);
                  emit(field, text);
                }}
              />
            </div>
          )}
        />
      );
    }
    if (!props.templates || !field.templated || field.type === "number") {
      return (
        <input
          id={id}
          type={field.type === "number" ? "number" : "text"}
          defaultValue={field.text}
          placeholder={field.placeholder}
          {...registered()}
        />
      );
    }
    const { onBlur, ...rest } = registered();
    const open = completing?.key === field.key ? completing.completion : null;
    return (
      <>
        <input
          id={id}
          type="text"
          defaultValue={field.text}
          placeholder={field.placeholder}
          autoComplete="off"
          {...rest}
          onBlur={(event) => {
            setCompleting(null);
            return onBlur(event);
          }}
          onKeyUp={(event) => {
            if (event.key !== "Enter" && event.key !== "Escape") caretMoved(field, event.currentTarget);
          }}
          onClick={(event) => caretMoved(field, event.currentTarget)}
          onKeyDown={(event) => {
            if (!open) return;
            if (event.key === "Escape") setCompleting(null);
            if (event.key === "Enter" || event.key === "Tab") {
              event.preventDefault();
              pick(field, open.options[0]!);
            }
          }}
        />
        {open && <CompletionList completion={open} onPick={(option) => pick(field, option)} />}
      </>
    );
  };

  return (
    <div className="config-form">
      {fields.some((f) => f.templated) && <p className="hint">{TEMPLATE_HINT}</p>}
      {fields.map((field) => {
        const problem = form.formState.errors[field.key]?.message;
        return (
          <div key={field.key} className={`field field-${field.type}${problem ? " invalid" : ""}`}>
            <label htmlFor={idOf(field.key)}>
              {field.label}
              {field.required && (
                <span className="required" title="required">
                  {" "}
                  *
                </span>
              )}
              <span className="field-type">{field.type}</span>
            </label>
            {control(field)}
            {props.templates && field.templated && !problem && (
              <TemplatePreview field={field} scope={props.templates.scope} />
            )}
            {problem && (
              <p className="field-error" role="alert">
                {problem}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
