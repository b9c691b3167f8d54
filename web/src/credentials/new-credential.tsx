// The form that stores a new credential: its name, type and the type's values, gone once stored.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { CREDENTIAL_FORMS, CREDENTIAL_TYPES, credentialData } from "../components/credential-fields";
import { ErrorMessage } from "../ui/status-badge";
import type { NewCredentialBody } from "../types";
import { CredentialFieldInput, type Values } from "./credential-field-input";

/** The new-credential form: the type's values under `data` (api_key has a `name` of its own). */
type NewValues = { name: string; type: string; data: Values };

const defaultsOf = (type: string): Values =>
  Object.fromEntries(CREDENTIAL_FORMS[type]!.fields.map((f) => [f.key, f.options?.[0] ?? ""]));

export function NewCredential() {
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
          <CredentialFieldInput
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
