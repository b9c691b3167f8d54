// A node's config form, generated from its catalog config_schema (react-hook-form: one registered
// field per config key; CodeMirror fields through a Controller).
import { useMemo } from "react";
import { Controller, useForm, type FieldErrors } from "react-hook-form";
import type { ConfigSchema, Credential } from "../types";
import { LazyCodeEditor } from "./lazy-code-editor";
import { formFields, parseFieldInput, type FormField } from "./config-fields";

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
            <div className="code-field" data-field={field.key} data-type={field.type}>
              <LazyCodeEditor
                id={id}
                value={textOf(controlled.value)}
                label={field.label}
                language={field.type === "json" ? "json" : "javascript"}
                placeholder={field.placeholder}
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
    return (
      <input
        id={id}
        type={field.type === "number" ? "number" : "text"}
        defaultValue={field.text}
        placeholder={field.placeholder}
        {...registered()}
      />
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
