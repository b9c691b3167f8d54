// A node's config form, generated from its catalog config_schema (react-hook-form: one registered
// field per config key; CodeMirror fields through a Controller).
import { useMemo, useState } from "react";
import { Controller, useForm, type FieldErrors, type UseFormReturn } from "react-hook-form";
import type { ConfigSchema, Credential } from "../types";
import { credentialChoices } from "./credential-choices";
import { LazyCodeEditor } from "./lazy-code-editor";
import { McpServersEditor, type McpServerEntry } from "./mcp-servers";
import { formFields, parseFieldInput, type FormField } from "./config-fields";
import { completeTemplate, type Completion } from "./expression-help";
import { applyCompletion, completionAt, CompletionList, TemplatePreview, type TemplateHelp } from "./template-field";

export { credentialChoices } from "./credential-choices";

const TEMPLATE_HINT =
  "Templates: {{ input.field }} reads the node's input, {{ nodes.<id>.field }} an earlier node's output.";

/** What the controls hold: the text typed (a checkbox's state for booleans), keyed by config key. */
type FormValues = Record<string, string | boolean>;

const textOf = (value: string | boolean | undefined) => (typeof value === "boolean" ? String(value) : (value ?? ""));

/** Text typed in a field that does not read as its type: kept, shown with its error, and blocking a save. */
export interface FieldDraft {
  text: string;
  error: string;
}

/** The problems the API reported, and the fields whose typed text does not parse, as the form's errors. */
function initialErrors(
  fields: FormField[],
  problems: Record<string, string> | undefined,
  drafts: Record<string, FieldDraft> | undefined,
): FieldErrors<FormValues> | undefined {
  const entries = [
    ...Object.entries(problems ?? {}).map(([key, message]) => [key, { type: "server", message }] as const),
    ...fields
      .filter((field) => drafts?.[field.key])
      .map((field) => [field.key, { type: "validate", message: drafts![field.key]!.error }] as const),
  ];
  return entries.length > 0 ? (Object.fromEntries(entries) as FieldErrors<FormValues>) : undefined;
}

export interface ConfigFormProps {
  schema: ConfigSchema | undefined;
  config: Record<string, unknown>;
  /** Problems the API reported, keyed by config key. */
  problems?: Record<string, string>;
  onChange: (config: Record<string, unknown>) => void;
  /** Texts typed earlier that did not parse (the editor keeps them while another node is shown). */
  drafts?: Record<string, FieldDraft>;
  /** A field's text stopped parsing (its draft), or parses again (null). */
  onDraft?: (field: { key: string; label: string }, draft: FieldDraft | null) => void;
  /** The workspace's credentials, offered by fields that take one (undefined while loading). */
  credentials?: Credential[];
  /** Prefixes the controls' ids: two forms of one node (config, settings) may share a key. */
  idPrefix?: string;
  /** The sample templated fields are previewed and completed against (the editor's input panel). */
  templates?: TemplateHelp;
}

/** What each field's control needs of the form. */
interface FormKit {
  form: UseFormReturn<FormValues>;
  props: ConfigFormProps;
  idOf: (key: string) => string;
  validate: (field: FormField) => (value: string | boolean) => true | string;
  /** A change: the node's config when it parses, the field's draft when it does not. */
  emit: (field: FormField, value: string | boolean) => void;
}

export function ConfigForm(props: ConfigFormProps) {
  // The editor keys the form by node: what is typed stays as typed, and another node starts afresh.
  const fields = formFields(props.schema, props.config);
  const [drafts] = useState(props.drafts);
  // New errors only when the API's problems change (drafts count at the start: the form checks as typed).
  const errors = useMemo(() => initialErrors(fields, props.problems, drafts), [props.problems]);
  const form = useForm<FormValues>({
    mode: "onChange",
    defaultValues: Object.fromEntries(
      fields.map((f) => [f.key, f.type === "boolean" ? f.text === "true" : (drafts?.[f.key]?.text ?? f.text)]),
    ),
    errors,
    shouldFocusError: false,
  });
  if (fields.length === 0) return <p className="muted">This node has no settings.</p>;
  const kit: FormKit = {
    form,
    props,
    idOf: (key) => `${props.idPrefix ?? "field"}-${key}`,
    validate: (field) => (value) => {
      const parsed = parseFieldInput(field, textOf(value));
      return parsed.ok || parsed.error;
    },
    emit: (field, value) => {
      const text = textOf(value);
      const parsed = parseFieldInput(field, text);
      if (!parsed.ok) return props.onDraft?.(field, { text, error: parsed.error });
      props.onDraft?.(field, null);
      const next = { ...props.config };
      if (parsed.value === undefined) delete next[field.key];
      else next[field.key] = parsed.value;
      props.onChange(next);
    },
  };
  return (
    <div className="config-form">
      {fields.some((f) => f.templated) && <p className="hint">{TEMPLATE_HINT}</p>}
      {fields.map((field) => (
        <FieldRow key={field.key} kit={kit} field={field} />
      ))}
    </div>
  );
}

function FieldRow({ kit, field }: { kit: FormKit; field: FormField }) {
  const problem = kit.form.formState.errors[field.key]?.message;
  const templates = kit.props.templates;
  return (
    <div className={`field field-${field.type}${problem ? " invalid" : ""}`}>
      <label htmlFor={kit.idOf(field.key)}>
        {field.label}
        {field.required && (
          <span className="required" title="required">
            {" "}
            *
          </span>
        )}
        <span className="field-type">{field.type}</span>
      </label>
      <FieldControl kit={kit} field={field} />
      {templates && field.templated && !isMcpServers(field) && !problem && (
        <TemplatePreview field={field} text={textOf(kit.form.watch(field.key))} scope={templates.scope} />
      )}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

function FieldControl({ kit, field }: { kit: FormKit; field: FormField }) {
  const { form, idOf } = kit;
  const id = idOf(field.key);
  const registered = () =>
    form.register(field.key, {
      validate: kit.validate(field),
      onChange: () => kit.emit(field, form.getValues(field.key)),
    });
  // An agent's MCP servers: a list editor rather than JSON (never templated: the engine takes it literally).
  if (isMcpServers(field)) return <McpServersField kit={kit} field={field} />;
  if (field.credential_types) {
    const types = field.credential_types;
    const choices = credentialChoices(kit.props.credentials, types, field.text);
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
  if (field.type === "json" || field.type === "code") return <CodeField kit={kit} field={field} />;
  if (field.type === "number") {
    return <input id={id} type="number" defaultValue={field.text} placeholder={field.placeholder} {...registered()} />;
  }
  return <TextField kit={kit} field={field} />;
}

const isMcpServers = (field: FormField) => field.key === "mcp_servers" && field.type === "json";

/** The ai.agent node's mcp_servers: each server's URL, label, credential picker and tool lists. */
function McpServersField({ kit, field }: { kit: FormKit; field: FormField }) {
  const { props } = kit;
  const value = props.config[field.key];
  return (
    <div id={kit.idOf(field.key)} data-field={field.key}>
      <McpServersEditor
        idPrefix={kit.idOf(field.key)}
        value={Array.isArray(value) ? (value as McpServerEntry[]) : []}
        credentials={props.credentials}
        onChange={(servers) => {
          const next = { ...props.config };
          if (servers.length === 0) delete next[field.key];
          else next[field.key] = servers;
          props.onChange(next);
        }}
      />
    </div>
  );
}

/** A json or code field: CodeMirror, completing references inside {{ }} in json fields. */
function CodeField({ kit, field }: { kit: FormKit; field: FormField }) {
  const templates = kit.props.templates;
  return (
    <Controller
      name={field.key}
      control={kit.form.control}
      rules={{ validate: kit.validate(field) }}
      render={({ field: controlled }) => (
        <div
          className="code-field"
          data-field={field.key}
          data-type={field.type}
          onFocusCapture={() => templates?.onFocus(field.key)}
        >
          <LazyCodeEditor
            id={kit.idOf(field.key)}
            value={textOf(controlled.value)}
            label={field.label}
            language={field.type === "json" ? "json" : "javascript"}
            placeholder={field.placeholder}
            completions={
              templates && field.templated ? (text, caret) => completeTemplate(text, caret, templates.scope) : undefined
            }
            onCaret={templates && field.templated ? (caret) => templates.onFocus(field.key, caret) : undefined}
            onChange={(text) => {
              controlled.onChange(text);
              kit.emit(field, text);
            }}
          />
        </div>
      )}
    />
  );
}

/**
 * A text field: one that wraps (a long URL stays in view), with the references offered at its
 * caret inside {{ }}. Enter adds no line: the value is one line, as in any text field.
 */
function TextField({ kit, field }: { kit: FormKit; field: FormField }) {
  const { form } = kit;
  const templates = kit.props.templates;
  const [completion, setCompletion] = useState<Completion | null>(null);
  const { onBlur, ...rest } = form.register(field.key, {
    validate: kit.validate(field),
    onChange: () => kit.emit(field, form.getValues(field.key)),
  });
  const caretMoved = (input: HTMLTextAreaElement) => {
    if (!templates) return;
    templates.onFocus(field.key, input.selectionStart ?? undefined);
    const found = completionAt(input, templates.scope);
    setCompletion(found && found.options.length > 0 ? found : null);
  };
  const pick = (option: string) => {
    if (!completion) return;
    const text = applyCompletion(textOf(form.getValues(field.key)), completion, option);
    form.setValue(field.key, text, { shouldValidate: true });
    kit.emit(field, text);
    setCompletion(null);
  };
  return (
    <>
      <textarea
        id={kit.idOf(field.key)}
        className="text-field"
        rows={1}
        defaultValue={field.text}
        placeholder={field.placeholder}
        autoComplete="off"
        spellCheck={false}
        {...rest}
        onBlur={(event) => {
          setCompletion(null);
          return onBlur(event);
        }}
        onKeyUp={(event) => {
          if (event.key !== "Enter" && event.key !== "Escape" && event.key !== "Tab") caretMoved(event.currentTarget);
        }}
        onClick={(event) => caretMoved(event.currentTarget)}
        onKeyDown={(event) => {
          if (completion && event.key === "Escape") setCompletion(null);
          if (event.key !== "Enter") return;
          event.preventDefault();
          if (completion) pick(completion.options[0]!);
        }}
      />
      {completion && <CompletionList completion={completion} onPick={pick} />}
    </>
  );
}
