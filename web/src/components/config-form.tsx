// A node's config form, generated from its catalog config_schema.
import { useState } from "react";
import type { ConfigSchema } from "../types";
import { LazyCodeEditor } from "./lazy-code-editor";
import { formFields, parseFieldInput, type FormField } from "./config-fields";

const TEMPLATE_HINT =
  "Templates: {{ input.field }} reads the node's input, {{ nodes.<id>.field }} an earlier node's output.";

function FieldControl(props: { field: FormField; onValue: (value: unknown) => void; onError: (e?: string) => void }) {
  const { field } = props;
  // Local text: what is typed stays as typed (the editor keys the form by node, so another node starts afresh).
  const [text, setText] = useState(field.text);
  const id = `field-${field.key}`;
  const change = (next: string) => {
    setText(next);
    const parsed = parseFieldInput(field, next);
    if (parsed.ok) {
      props.onError(undefined);
      props.onValue(parsed.value);
    } else props.onError(parsed.error);
  };

  if (field.type === "boolean") {
    return (
      <input
        id={id}
        name={field.key}
        type="checkbox"
        checked={text === "true"}
        onChange={(e) => change(String(e.target.checked))}
      />
    );
  }
  if (field.options && field.type === "string") {
    return (
      <select id={id} name={field.key} value={text} onChange={(e) => change(e.target.value)}>
        {!field.required && <option value="">(none)</option>}
        {field.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  }
  if (field.type === "json" || field.type === "code") {
    return (
      <div className="code-field" data-field={field.key} data-type={field.type}>
        <LazyCodeEditor
          id={id}
          value={text}
          label={field.label}
          language={field.type === "json" ? "json" : "javascript"}
          placeholder={field.placeholder}
          onChange={change}
        />
      </div>
    );
  }
  return (
    <input
      id={id}
      name={field.key}
      type={field.type === "number" ? "number" : "text"}
      value={text}
      placeholder={field.placeholder}
      onChange={(e) => change(e.target.value)}
    />
  );
}

export function ConfigForm(props: {
  schema: ConfigSchema | undefined;
  config: Record<string, unknown>;
  /** Problems the API reported, keyed by config key. */
  problems?: Record<string, string>;
  onChange: (config: Record<string, unknown>) => void;
}) {
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const fields = formFields(props.schema, props.config);
  if (fields.length === 0) return <p className="muted">This node has no settings.</p>;
  const set = (key: string, value: unknown) => {
    const next = { ...props.config };
    if (value === undefined) delete next[key];
    else next[key] = value;
    props.onChange(next);
  };
  return (
    <div className="config-form">
      {fields.some((f) => f.templated) && <p className="hint">{TEMPLATE_HINT}</p>}
      {fields.map((field) => {
        const problem = errors[field.key] ?? props.problems?.[field.key];
        return (
          <div key={field.key} className={`field field-${field.type}${problem ? " invalid" : ""}`}>
            <label htmlFor={`field-${field.key}`}>
              {field.label}
              {field.required && (
                <span className="required" title="required">
                  {" "}
                  *
                </span>
              )}
              <span className="field-type">{field.type}</span>
            </label>
            <FieldControl
              field={field}
              onValue={(value) => set(field.key, value)}
              onError={(error) => setErrors((current) => ({ ...current, [field.key]: error }))}
            />
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
