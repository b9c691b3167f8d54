// A stored credential in the list: its name, type, hint and fields, Rotate and Delete; a credential
// flows use names them before it can be deleted anyway.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { ApiError, client, describeError, read } from "../api";
import { CREDENTIAL_FORMS, describeFields } from "../components/credential-fields";
import { ErrorMessage } from "../ui/status-badge";
import { formatTime } from "../format";
import type { Credential } from "../types";
import { RotateCredential } from "./rotate-credential";

export function CredentialRow({ credential }: { credential: Credential }) {
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
      {rotating && <RotateCredential credential={credential} done={() => setRotating(false)} />}
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
