import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import {
  type ParsedTemplates,
  renderValue,
  TemplateLimitError,
  type TemplateScope,
  TemplateSyntaxError,
} from "../../../core/flows/template.js";
import { literalFields, type NodeDefinition } from "../../../core/nodes/define-node.js";
import { configFailure, definitionOf, type NodeActivityParts } from "./node-parts.js";

/** A node's input and its config, ready to run: references resolved, templates rendered, config checked. */
export async function prepareNode(
  { blobs, nodes }: Pick<NodeActivityParts, "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<{ input: unknown; config: Record<string, unknown> }> {
  const scope = await nodeScope({ blobs }, args);
  return { input: scope.input, config: configIn(definitionOf(nodes, args.type), args, scope) };
}

/** What the node's templates read: its input, the run's, upstream outputs (references resolved) and the run's facts. */
export async function nodeScope(
  { blobs }: Pick<NodeActivityParts, "blobs">,
  args: NodeActivityInput,
): Promise<TemplateScope> {
  const [input, upstream, trigger] = await Promise.all([
    blobs.resolve(args.input),
    blobs.resolve(args.upstream),
    blobs.resolve(args.trigger),
  ]);
  return {
    input,
    trigger,
    nodes: upstream as Record<string, unknown>,
    run: args.run as unknown as Record<string, unknown>,
  };
}

/** The node's config rendered against a scope and checked against its schema (a NodeConfigError otherwise). */
export function configIn(
  definition: NodeDefinition,
  args: NodeActivityInput,
  scope: TemplateScope,
  templates?: ParsedTemplates,
): Record<string, unknown> {
  const rendered = renderConfig(definition, args, scope, templates);
  const parsed = definition.config.safeParse(rendered);
  if (!parsed.success) {
    throw configFailure(
      args.nodeId,
      parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; "),
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** The config with its templates rendered against the scope; the node's literal fields as they are. */
function renderConfig(
  definition: NodeDefinition,
  args: NodeActivityInput,
  scope: TemplateScope,
  parsed?: ParsedTemplates,
): unknown {
  const literal = literalFields(definition);
  const templated = Object.fromEntries(Object.entries(args.config).filter(([key]) => !literal.has(key)));
  return {
    ...(renderOrFail(args.nodeId, templated, scope, parsed) as Record<string, unknown>),
    ...Object.fromEntries(Object.entries(args.config).filter(([key]) => literal.has(key))),
  };
}

/** A value's templates rendered; a syntax or size failure is the node's config failure (not retried). */
export function renderOrFail(nodeId: string, value: unknown, scope: TemplateScope, parsed?: ParsedTemplates): unknown {
  try {
    return renderValue(value, scope, undefined, parsed);
  } catch (error) {
    // The same config on the same data would fail the same way again: not retried.
    if (error instanceof TemplateSyntaxError || error instanceof TemplateLimitError) {
      throw configFailure(nodeId, error.message);
    }
    throw error;
  }
}
