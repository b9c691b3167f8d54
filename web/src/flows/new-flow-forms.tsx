// A new flow: named, from scratch or a template, or imported from a JSON file; the editor opens on it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { useLocation } from "wouter";
import { client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";
import type { FlowDefinition } from "../types";

/** A new flow starts with a manual trigger: a definition needs at least one node. */
const STARTER = {
  nodes: [{ id: "start", type: "manual", name: "Manual trigger", config: {}, position: { x: 80, y: 120 } }],
  edges: [],
};

/** Reads an export ({ name, description, definition }) or a bare definition ({ nodes, edges }) and creates it. */
async function importFile(file: File) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await file.text());
  } catch {
    throw new Error(`${file.name} is not a JSON file`);
  }
  const body = (parsed ?? {}) as { name?: unknown; description?: unknown; definition?: unknown };
  const definition = body.definition ?? parsed;
  const name = typeof body.name === "string" && body.name ? body.name : file.name.replace(/\.json$/i, "");
  // The API checks the definition; a file's mistakes come back as its validation details.
  return read(
    client.POST("/api/flows", {
      body: {
        name,
        status: "inactive",
        ...(typeof body.description === "string" ? { description: body.description } : {}),
        definition: definition as FlowDefinition,
      },
    }),
  );
}

/** Creating and importing, each opening the editor on the new flow. */
function useNewFlow() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const onSuccess = (flow: { id: string }) => {
    void queryClient.invalidateQueries({ queryKey: ["flows"] });
    navigate(`/flows/${flow.id}`);
  };
  const create = useMutation({
    mutationFn: ({ name, template }: { name: string; template: string }) =>
      read(
        client.POST("/api/flows", {
          // Inactive until its author activates it: a half-built flow's hook or schedule must not fire.
          body: template
            ? { template, status: "inactive", ...(name ? { name } : {}) }
            : { name, status: "inactive", definition: STARTER },
        }),
      ),
    onSuccess,
  });
  const importFlow = useMutation({ mutationFn: importFile, onSuccess });
  return { create, importFlow };
}

export function NewFlowForms() {
  const form = useForm({ defaultValues: { name: "", template: "" } });
  const template = form.watch("template");
  const templates = useQuery({
    queryKey: ["templates"],
    queryFn: () => read(client.GET("/api/templates")),
  });
  const { create, importFlow } = useNewFlow();
  return (
    <>
      <form className="toolbar" onSubmit={form.handleSubmit((flow) => create.mutate(flow))}>
        <input
          aria-label="New flow name"
          placeholder="Name of a new flow"
          required={!template}
          {...form.register("name")}
        />
        <select aria-label="Template" {...form.register("template")}>
          <option value="">From scratch</option>
          {(templates.data?.items ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              Template: {t.name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={create.isPending}>
          Create flow
        </button>
      </form>
      <div className="toolbar">
        <label className="file-button">
          Import a flow (JSON)
          <input
            type="file"
            accept="application/json,.json"
            aria-label="Import flow JSON"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) importFlow.mutate(file);
              e.target.value = "";
            }}
          />
        </label>
      </div>
      <ErrorMessage error={create.error ? describeError(create.error) : null} />
      <ErrorMessage error={importFlow.error ? describeError(importFlow.error) : null} />
    </>
  );
}
