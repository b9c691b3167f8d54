// What Temporal shows operators beside a workflow or an activity: its static summary and details
// (flow name, version, trigger, node ids, the ids to filter by) and its memo (flow name, version,
// the parent run). None of it is secret, and it should read in the workflow list and on the
// command line without the codec endpoint, so the payload codec leaves it plain
// (core/engine/data-converter.ts) while it seals every other payload.
import { defaultPayloadConverter, RawValue, type Payload } from "@temporalio/common";
import { encode } from "@temporalio/common/lib/encoding.js";

/** Metadata that marks a payload as meant for operators, which the codec does not encrypt. */
export const OPERATOR_TEXT_METADATA = "svc-operator-text";

/** `value` as a payload marked for operators; Temporal's payload converter hands a RawValue on as it is. */
function operatorValue(value: string | number): RawValue {
  const payload = defaultPayloadConverter.toPayload(value)!;
  return RawValue.fromPayload({ ...payload, metadata: { ...payload.metadata, [OPERATOR_TEXT_METADATA]: encode("1") } });
}

/**
 * `text` for Temporal's summary and details options. It is a RawValue typed as the string those
 * options declare (the payload converter takes either): pass it to them and to nothing else.
 */
export function operatorText(text: string): string {
  return operatorValue(text) as unknown as string;
}

/** A workflow's memo, every field marked for operators. */
export function operatorMemo(fields: Record<string, string | number>): Record<string, RawValue> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, operatorValue(value)]));
}

export function isOperatorText(payload: Payload): boolean {
  return payload.metadata?.[OPERATOR_TEXT_METADATA] !== undefined;
}
