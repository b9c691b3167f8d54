// The usage page's prices: US dollars per million tokens per model, the shipped ones and the
// workspace's own, which admins set and remove.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type Dispatch, type SetStateAction } from "react";
import { client, describeError, read } from "../api";
import type { ModelPrice } from "../types";
import { ErrorMessage } from "../ui/status-badge";

type Provider = "openai" | "anthropic";
interface PriceDraft {
  provider: Provider;
  model: string;
  input: string;
  output: string;
}

function usePrices() {
  const queryClient = useQueryClient();
  const prices = useQuery({ queryKey: ["usage", "prices"], queryFn: () => read(client.GET("/api/usage/prices")) });
  const [form, setForm] = useState<PriceDraft>({ provider: "openai", model: "", input: "", output: "" });
  const done = () => queryClient.invalidateQueries({ queryKey: ["usage", "prices"] });
  const save = useMutation({
    mutationFn: () =>
      read(
        client.PUT("/api/usage/prices", {
          body: {
            provider: form.provider,
            model: form.model.trim(),
            input_per_mtok: Number(form.input),
            output_per_mtok: Number(form.output),
          },
        }),
      ),
    onSuccess: () => {
      setForm({ ...form, model: "", input: "", output: "" });
      return done();
    },
  });
  const remove = useMutation({
    mutationFn: (price: ModelPrice) =>
      read(
        client.DELETE("/api/usage/prices", {
          params: { query: { provider: price.provider as Provider, model: price.model } },
        }),
      ),
    onSuccess: done,
  });
  return { prices, form, setForm, save, remove };
}

export function Prices({ canEdit }: { canEdit: boolean }) {
  const { prices, form, setForm, save, remove } = usePrices();
  return (
    <>
      <h2>Prices</h2>
      <p className="hint">
        US dollars per million tokens. A workspace price replaces the shipped one for calls from now on; recorded calls
        keep their cost.
      </p>
      <ErrorMessage error={prices.error ? describeError(prices.error) : null} />
      <PriceTable
        prices={prices.data?.items ?? []}
        canEdit={canEdit}
        onRemove={(price) => remove.mutate(price)}
        removing={remove.isPending}
      />
      {canEdit && <PriceForm form={form} setForm={setForm} onSave={() => save.mutate()} saving={save.isPending} />}
      <ErrorMessage
        error={save.error ? describeError(save.error) : remove.error ? describeError(remove.error) : null}
      />
    </>
  );
}

function PriceTable(props: {
  prices: ModelPrice[];
  canEdit: boolean;
  onRemove: (price: ModelPrice) => void;
  removing: boolean;
}) {
  const { prices, canEdit, onRemove, removing } = props;
  return (
    <table className="list cards prices">
      <thead>
        <tr>
          <th>Model</th>
          <th>Input</th>
          <th>Output</th>
          <th>Source</th>
          {canEdit && <th />}
        </tr>
      </thead>
      <tbody>
        {prices.map((price) => (
          <tr key={`${price.provider}/${price.model}`}>
            <td>
              {price.provider} <code>{price.model}</code>
            </td>
            <td data-label="Input">${price.input_per_mtok}</td>
            <td data-label="Output">${price.output_per_mtok}</td>
            <td data-label="Source">{price.source === "workspace" ? "this workspace" : "default"}</td>
            {canEdit && (
              <td>
                {price.source === "workspace" && (
                  <button type="button" onClick={() => onRemove(price)} disabled={removing}>
                    {price.default ? "Back to default" : "Remove"}
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A workspace price for a model: provider, model, input and output per million tokens. */
function PriceForm(props: {
  form: PriceDraft;
  setForm: Dispatch<SetStateAction<PriceDraft>>;
  onSave: () => void;
  saving: boolean;
}) {
  const { form, setForm, onSave, saving } = props;
  return (
    <form
      className="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <select
        aria-label="Provider"
        value={form.provider}
        onChange={(e) => setForm({ ...form, provider: e.target.value as Provider })}
      >
        <option value="openai">openai</option>
        <option value="anthropic">anthropic</option>
      </select>
      <input
        aria-label="Model"
        placeholder="Model"
        required
        value={form.model}
        onChange={(e) => setForm({ ...form, model: e.target.value })}
      />
      <input
        aria-label="Input price"
        placeholder="Input $/M"
        inputMode="decimal"
        required
        value={form.input}
        onChange={(e) => setForm({ ...form, input: e.target.value })}
      />
      <input
        aria-label="Output price"
        placeholder="Output $/M"
        inputMode="decimal"
        required
        value={form.output}
        onChange={(e) => setForm({ ...form, output: e.target.value })}
      />
      <button type="submit" disabled={saving}>
        Set price
      </button>
    </form>
  );
}
