// A credential's rotation: new values for its secret fields, stored in place of the old ones.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { CREDENTIAL_FORMS, credentialData } from "../components/credential-fields";
import { ErrorMessage } from "../ui/status-badge";
import type { Credential } from "../types";
import { CredentialFieldInput, type Values } from "./credential-field-input";

export function RotateCredential({ credential, done }: { credential: Credential; done: () => void }) {
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
        <CredentialFieldInput key={field.key} field={field} register={() => form.register(field.key)} prefix="New " />
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
