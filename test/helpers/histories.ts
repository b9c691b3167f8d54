// Temporal histories as an operator exports them (`temporal workflow show -o json`: proto JSON,
// payloads in base64), and the same with every sealed payload opened by the payload codec.
import type { Client } from "@temporalio/client";
import type { Payload, PayloadCodec } from "@temporalio/common";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";

/**
 * The run's workflow history, exported as JSON once the workflow has closed (a run's record ends
 * with its last node's commit, a moment before its workflow does).
 */
export async function exportedHistory(temporal: Client, workflowId: string): Promise<string> {
  const handle = temporal.workflow.getHandle(workflowId);
  // A failed run's workflow ends Failed: closed all the same.
  await handle.result().catch(() => undefined);
  return historyToJSON(await handle.fetchHistory());
}

export interface JsonPayload {
  metadata: Record<string, string>;
  data?: string;
}
const isJsonPayload = (value: object): value is JsonPayload =>
  typeof (value as { metadata?: { encoding?: unknown } }).metadata?.encoding === "string";

const toPayload = ({ metadata, data }: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata).map(([key, text]) => [key, Buffer.from(text, "base64")])),
  ...(data === undefined ? {} : { data: Buffer.from(data, "base64") }),
});
const toJsonPayload = ({ metadata, data }: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(metadata ?? {}).map(([key, bytes]) => [key, Buffer.from(bytes).toString("base64")]),
  ),
  ...(data ? { data: Buffer.from(data).toString("base64") } : {}),
});

/** Every payload of an exported history, in the form the Temporal UI sends them to a codec. */
export function payloadsOfHistory(json: string): JsonPayload[] {
  const found: JsonPayload[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      if (isJsonPayload(value)) found.push(value);
      else Object.values(value).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return found;
}

/** The exported history with every payload passed through `codec.decode` (sealed ones opened). */
export async function openedHistory(json: string, codec: PayloadCodec): Promise<string> {
  const open = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(open));
    if (!value || typeof value !== "object") return value;
    if (isJsonPayload(value)) return toJsonPayload((await codec.decode([toPayload(value)]))[0]!);
    const entries = await Promise.all(Object.entries(value).map(async ([key, child]) => [key, await open(child)]));
    return Object.fromEntries(entries);
  };
  return JSON.stringify(await open(JSON.parse(json)));
}

/** Every string of a JSON document, and the text of those that are base64 (Temporal's payloads). */
export function searchableText(json: string): string {
  const parts: string[] = [json];
  const walk = (value: unknown) => {
    if (typeof value === "string") {
      if (value.length >= 8 && value.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
        parts.push(Buffer.from(value, "base64").toString("utf8"));
      }
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(JSON.parse(json));
  return parts.join("\n");
}
