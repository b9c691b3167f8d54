import { isGrpcServiceError, type Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { SEARCH_ATTRIBUTES } from "../contracts/run-flow.js";

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
/** The gRPC status of a call a server does not implement. */
const UNIMPLEMENTED = 12;

/**
 * Registers our search attributes on the namespace when missing, so that starting a run never
 * fails on them and operators can filter runs by workspace and flow in the Temporal UI.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace }).catch((error) => {
    // Temporal's time-skipping test server cannot list them (UNIMPLEMENTED): all are added.
    if (isGrpcServiceError(error) && error.code === UNIMPLEMENTED) return { customAttributes: {} };
    throw error;
  });
  const missing = Object.values(SEARCH_ATTRIBUTES).filter((name) => !(name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
    });
  } catch (error) {
    // Another process registered them in between.
    if (!/already exists/i.test((error as Error).message)) throw error;
  }
}
