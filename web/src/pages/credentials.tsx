// The workspace's credentials: stored once, never shown again (a hint of the last characters at
// most), rotated, deleted; a credential flows use shows them before it can be deleted.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link } from "wouter";
import { ApiError, client, describeError, read } from "../api";
import {
  CREDENTIAL_FORMS,
  CREDENTIAL_TYPES,
  credentialData,
  describeFields,
  type CredentialFieldSpec,
} from "../components/credential-fields";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage } from "../ui/status-badge";
import { formatTime } from "../format";
import type { Credential, NewCredentialBody } from "../types";

type Values = Record<string, string>;
/** The new-credential form: the type's values under `data` (api_key has a `name` of its own). */
type NewValues = { name: string; type: string; data: Values };

/** One input of a credential field, as `register` (already naming it) binds it. */
function FieldInput({
  field,
  register,
  prefix,
}: {
  field: CredentialFieldSpec;
  register: () => ReturnType<ReturnType<typeof useForm<Values>>["register"]>;
  prefix: string;
}) {
  const label = `${prefix}${field.label}`;
  if (field.options) {
    return (
      <select aria-label={label} {...register()}>
        {field.options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  }
  if (field.lines) {
    return <textarea aria-label={label} rows={3} placeholder="X-Tenant: acme" {...register()} />;
  }
  return (
    <input
      aria-label={label}
      type={field.secret ? "password" : "text"}
      autoComplete={field.secret ? "new-password" : "off"}
      placeholder={field.placeholder ?? (field.optional ? `${field.label} (optional)` : field.label)}
      {...register()}
    />
  );
}

const defaultsOf = (type: string): Values =>
  Object.fromEntries(CREDENTIAL_FORMS[type]!.fields.map((f) => [f.key, f.options?.[0] ?? ""]));

function NewCredential() {
  const queryClient = useQueryClient();
  const form = useForm<NewValues>({ defaultValues: { name: "", type: "bearer", data: defaultsOf("bearer") } });
  const type = form.watch("type");
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: { name: string; type: string; data: Record<string, unknown> }) =>
      read(client.POST("/api/credentials", { body: body as NewCredentialBody })),
    onSuccess: () => {
      // The values typed are gone once stored.
      form.reset({ name: "", type, data: defaultsOf(type) });
      void queryClient.invalidateQueries({ queryKey: ["credentials"] });
    },
  });
  const submit = form.handleSubmit((values) => {
    const data = credentialData(values.type, values.data);
    setProblem(data.ok ? null : data.error);
    if (data.ok) create.mutate({ name: values.name.trim(), type: values.type, data: data.data });
  });
  return (
    <section className="card">
      <h2>New credential</h2>
      <form className="stack" onSubmit={submit}>
        <input aria-label="Credential name" placeholder="Name, e.g. Orders API" required {...form.register("name")} />
        <select
          aria-label="Credential type"
          {...form.register("type", {
            // Another type asks for other values: nothing typed for the first one is kept.
            onChange: (e: { target: { value: string } }) => form.setValue("data", defaultsOf(e.target.value)),
          })}
        >
          {CREDENTIAL_TYPES.map((t) => (
            <option key={t} value={t}>
              {CREDENTIAL_FORMS[t]!.label}
            </option>
          ))}
        </select>
        {CREDENTIAL_FORMS[type]!.fields.map((field) => (
          <FieldInput
            key={`${type}-${field.key}`}
            field={field}
            register={() => form.register(`data.${field.key}`)}
            prefix=""
          />
        ))}
        <button type="submit" disabled={create.isPending}>
          Store credential
        </button>
      </form>
      <ErrorMessage error={problem ?? (create.error ? describeError(create.error) : null)} />
      <p className="muted small">
        Secret values are sealed and never shown again; flows name the credential, never the value.
      </p>
    </section>
  );
}

function Rotate({ credential, done }: { credential: Credential; done: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<Values>({ defaultValues: {} });
  const [problem, setProblem] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: (data: Record<string, unknown>) =>
      read(client.PATCH("/api/credentials/{id}", { params: { path: { id: credential.id } }, body: { data } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["credentials"] });
      done();
    },
  });
  const secretFields = CREDENTIAL_FORMS[credential.type]?.fields.filter((f) => f.secret) ?? [];
  return (
    <form
      className="toolbar"
      onSubmit={form.handleSubmit((values) => {
        const data = credentialData(credential.type, values, "secret");
        setProblem(data.ok ? null : data.error);
        if (data.ok) rotate.mutate(data.data);
      })}
    >
      {secretFields.map((field) => (
        <FieldInput key={field.key} field={field} register={() => form.register(field.key)} prefix="New " />
      ))}
      <button type="submit" disabled={rotate.isPending}>
        Save new value
      </button>
      <button type="button" onClick={done}>
        Cancel
      </button>
      <ErrorMessage error={problem ?? (rotate.error ? describeError(rotate.error) : null)} />
    </form>
  );
}

function CredentialRow({ credential }: { credential: Credential }) {
  const queryClient = useQueryClient();
  const [rotating, setRotating] = useState(false);
  const [usedBy, setUsedBy] = useState<Array<{ id: string; name: string }> | null>(null);
  const remove = useMutation({
    mutationFn: (force: boolean) =>
      read(
        client.DELETE("/api/credentials/{id}", {
          params: { path: { id: credential.id }, query: force ? { force: "true" } : {} },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["credentials"] }),
    onError: (error) => {
      if (error instanceof ApiError && error.code === "credential_in_use") {
        setUsedBy(error.body.flows as Array<{ id: string; name: string }>);
      }
    },
  });
  const inUse = remove.error instanceof ApiError && remove.error.code === "credential_in_use";
  return (
    <li data-credential={credential.name}>
      <div className="endpoint-line">
        <strong>{credential.name}</strong>
        <span className="badge">{CREDENTIAL_FORMS[credential.type]?.label ?? credential.type}</span>
        {credential.hint && <code className="hint">{credential.hint}</code>}
        <span className="muted small">{describeFields(credential.fields)}</span>
        <span className="spacer" />
        <span className="muted small">updated {formatTime(credential.updated_at)}</span>
        <button type="button" onClick={() => setRotating(true)}>
          Rotate
        </button>
        <button type="button" className="danger" onClick={() => remove.mutate(false)}>
          Delete
        </button>
      </div>
      {rotating && <Rotate credential={credential} done={() => setRotating(false)} />}
      {usedBy && inUse ? (
        <div className="notice in-use" role="alert">
          Used by {usedBy.length === 1 ? "this flow" : `these ${usedBy.length} flows`}:{" "}
          {usedBy.map((flow, i) => (
            <span key={flow.id}>
              {i > 0 && ", "}
              <Link href={`/flows/${flow.id}`}>{flow.name}</Link>
            </span>
          ))}
          . Their runs fail at the node that uses it once it is gone.{" "}
          <button type="button" className="danger" onClick={() => remove.mutate(true)}>
            Delete anyway
          </button>
          <button type="button" onClick={() => setUsedBy(null)}>
            Keep it
          </button>
        </div>
      ) : (
        <ErrorMessage error={remove.error && !inUse ? describeError(remove.error) : null} />
      )}
    </li>
  );
}

export function CredentialsPage() {
  const pages = useCursorPages({ labels: IN_ORDER });
  const credentials = useQuery({
    queryKey: ["credentials", "page", pages.cursor],
    queryFn: () => read(client.GET("/api/credentials", { params: { query: { limit: 50, cursor: pages.cursor } } })),
  });
  const items = credentials.data?.items ?? [];
  return (
    <div className="settings">
      <h1>Credentials</h1>
      <section className="card">
        <h2>Stored credentials</h2>
        <ErrorMessage error={credentials.error ? describeError(credentials.error) : null} />
        {items.length === 0 ? (
          <p className="empty">No credentials yet: store one below, then pick it in a node's Credential field.</p>
        ) : (
          <ul className="endpoints">
            {items.map((credential) => (
              <CredentialRow key={credential.id} credential={credential} />
            ))}
          </ul>
        )}
        {pages.pager(credentials.data?.next_cursor)}
      </section>
      <NewCredential />
    </div>
  );
}
