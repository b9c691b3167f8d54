// The editor's expression help: the sample each node's templates read (the flow's last run, and
// the node tests made since, or the run the editor was opened from, and pinned outputs), the field a
// reference goes into, and the config it makes.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import type { PathSegment } from "../../../core/flows/template";
import { client, read } from "../api";
import type { ConfigSchema } from "../types";
import { formFields, type FormField } from "./config-fields";
import { insertReference, sampleScope, upstreamOf } from "./expression-help";
import type { EditorEdge } from "./flow-graph";
import type { TemplateHelp } from "./template-field";

/** The flow's newest run with its steps, or null before its first run. */
async function lastRunOf(flowId: string) {
  const page = await read(client.GET("/api/runs", { params: { query: { flow_id: flowId, limit: 1 } } }));
  const run = page.items[0];
  if (!run) return null;
  const steps = await read(client.GET("/api/runs/{id}/steps", { params: { path: { id: run.id } } }));
  return { ...run, steps: steps.items };
}

type SampleRun = Parameters<typeof sampleScope>[2];

/**
 * `from.run`: the run the editor was opened from ("Open in editor"), shown instead of the last run;
 * `from.pinned`: pinned outputs, over the run's and the node tests'.
 */
export function useExpressionHelp(
  flowId: string,
  edges: EditorEdge[],
  from: { run?: SampleRun | null; pinned?: ReadonlyMap<string, unknown> } = {},
) {
  const lastRun = useQuery({ queryKey: ["flow", flowId, "last-run"], queryFn: () => lastRunOf(flowId) });
  const [tested, setTested] = useState<ReadonlyMap<string, unknown>>(new Map());
  // The templated field the caret was in last: a reference clicked in the panel goes there.
  const focused = useRef<{ nodeId: string; key: string; caret?: number } | null>(null);
  const links = useMemo(() => edges.map((edge) => ({ from: edge.source, to: edge.target })), [edges]);
  return {
    sampleOf: (nodeId: string) => sampleScope(nodeId, links, from.run ?? lastRun.data ?? null, tested, from.pinned),
    upstreamOf: (nodeId: string) => upstreamOf(nodeId, links),
    /** A node test's output joins the sample (newer than the last run's). */
    onTested: (nodeId: string, output: unknown) => setTested((current) => new Map(current).set(nodeId, output)),
    templates: (nodeId: string, sample: ReturnType<typeof sampleScope>): TemplateHelp => ({
      scope: sample?.scope ?? null,
      onFocus: (key, caret) => {
        focused.current = { nodeId, key, caret };
      },
    }),
    /**
     * A reference put into the node's last focused templated field (else its first one), as fits
     * the field: the field and its new text (the editor reads it as a save would).
     */
    withReference(
      nodeId: string,
      schema: ConfigSchema | undefined,
      config: Record<string, unknown>,
      drafts: Record<string, { text: string }> | undefined,
      path: PathSegment[],
    ): { field: FormField; text: string } | null {
      const fields = formFields(schema, config).filter((field) => field.templated);
      const last = focused.current?.nodeId === nodeId ? focused.current : null;
      const field = fields.find((f) => f.key === last?.key) ?? fields[0];
      if (!field) return null;
      const text = drafts?.[field.key]?.text ?? field.text;
      const inserted = insertReference({ ...field, text }, path, field.key === last?.key ? last.caret : undefined);
      // The caret moves past what was put in, so a second click adds after it.
      if (last && field.key === last.key) last.caret = inserted.caret;
      else focused.current = { nodeId, key: field.key, caret: inserted.caret };
      return { field, text: inserted.text };
    },
  };
}
