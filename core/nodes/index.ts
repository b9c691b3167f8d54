import { aiAgentNode } from "./ai-agent/ai-agent.node.js";
import { aiPromptNode } from "./ai-prompt/ai-prompt.node.js";
import { branchNode } from "./branch/branch.node.js";
import { codeNode } from "./code/code.node.js";
import { conditionNode } from "./condition/condition.node.js";
import { dataTableNode } from "./data-table/data-table.node.js";
import { debugNode } from "./debug/debug.node.js";
import type { NodeDefinition } from "./define-node.js";
import { delayNode } from "./delay/delay.node.js";
import { flowCallNode } from "./flow-call/flow-call.node.js";
import { httpRequestNode } from "./http-request/http-request.node.js";
import { httpTriggerNode, webhookTriggerNode } from "./http-trigger/http-trigger.node.js";
import { kvNode } from "./kv/kv.node.js";
import { logNode } from "./log/log.node.js";
import { loopNode } from "./loop/loop.node.js";
import { manualNode } from "./manual/manual.node.js";
import { mcpToolNode } from "./mcp-tool/mcp-tool.node.js";
import { mergeNode } from "./merge/merge.node.js";
import { scheduleNode } from "./schedule/schedule.node.js";
import { sendWebhookNode } from "./send-webhook/send-webhook.node.js";
import { setNode } from "./set/set.node.js";
import { transformNode } from "./transform/transform.node.js";
import { objectStorageNode } from "./object-storage/object-storage.node.js";
import { waitNode } from "./wait/wait.node.js";

/** Every built-in node type, in catalog order. Adding a node means adding its folder and a line here. */
export const builtinNodes: readonly NodeDefinition[] = [
  manualNode,
  httpTriggerNode,
  webhookTriggerNode,
  scheduleNode,
  mcpToolNode,
  conditionNode,
  branchNode,
  mergeNode,
  loopNode,
  flowCallNode,
  delayNode,
  waitNode,
  logNode,
  debugNode,
  httpRequestNode,
  sendWebhookNode,
  transformNode,
  setNode,
  codeNode,
  kvNode,
  dataTableNode,
  objectStorageNode,
  aiPromptNode,
  aiAgentNode,
];
