import type { NodeActivityInput } from "../../../core/contracts/run-flow.js";
import {
  renderValue,
  TemplateLimitError,
  TemplateSyntaxError,
  type TemplateScope,
} from "../../../core/flows/template.js";
import { literalFields, type NodeDefinition } from "../../../core/nodes/define-node.js";
import { configFailure } from "./node-failures.js";
import { definitionOf, type NodeActivityParts } from "./node-parts.js";

/** A node's input and its config, ready to run: references resolved, templates rendered, config checked. */
export async function prepareNode(
  { blobs, nodes }: Pick<NodeActivityParts, "blobs" | "nodes">,
  args: NodeActivityInput,
): Promise<{ input: unknown; config: Record<string, unknown> }> {
  const [input, upstream, trigger] = await Promise.all([
    blobs.resolve(args.input),
    blobs.resolve(args.upstream),
    blobs.resolve(args.trigger),
  ]);
  const scope: TemplateScope = {
    input,
    trigger,
    nodes: upstream as Record<string, unknown>,
    run: args.run as unknown as Record<string, unknown>,
  };
  const definition = definitionOf(nodes, args.type);
  const rendered = renderConfig(definition, args, scope);
  const parsed = definition.config.safeParse(rendered);
  if (!parsed.success) {
    throw configFailure(
      args.nodeId,
      parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; "),
    );
  }
  return { input, config: parsed.data as Record<string, unknown> };
}

/** The config with its templates rendered against the scope; the node's literal fields as they are. */
function renderConfig(definition: NodeDefinition, args: NodeActivityInput, scope: TemplateScope): unknown {
  const literal = literalFields(definition);
  const templated = Object.fromEntries(Object.entries(args.config).filter(([key]) => !literal.has(key)));
  try {
    return {
      ...(renderValue(templated, scope) as Record<string, unknown>),
      ...Object.fromEntries(Object.entries(args.config).filter(([key]) => literal.has(key))),
    };
  } catch (error) {
    // The same config on the same data would fail the same way again: not retried.
    if (error instanceof TemplateSyntaxError || error instanceof TemplateLimitError) {
      throw configFailure(args.nodeId, error.message);
    }
    throw error;
  }
}
