// How the service's Temporal clients and workers turn values into payloads: Temporal's default
// converters, then the encryption codec (lib/crypto/payload-codec.ts) under SVC_ENCRYPTION_KEY.
// Every Client and Worker of a process takes the one data converter built here from its config
// (the API, its in-process worker, the worker process, the svc CLI, tests and benches); the
// codec runs outside the workflow sandbox, on the worker's side of it.
import { createRequire } from "node:module";
import type { DataConverter } from "@temporalio/common";
import type { Config } from "../../lib/config.js";
import { createEncryptionCodec, type EncryptionCodec } from "../../lib/crypto/payload-codec.js";
import { isOperatorText } from "../contracts/operator-text.js";

/**
 * The failure converter's module (failure-converter.cjs): clients load it by path, and the
 * workflow bundle takes it in (a prebuilt bundle is built with it: test/global-setup.ts).
 */
export const failureConverterPath = createRequire(import.meta.url).resolve("./failure-converter.cjs");

export interface ServiceDataConverter extends DataConverter {
  /** The one codec: the codec endpoint (api/routes/temporal-codec) decodes and encodes with it too. */
  payloadCodecs: [EncryptionCodec];
}

/**
 * With a key (always in production and under npm start) every payload is sealed, failures'
 * messages and stack traces too, but text for operators (summaries, details, memo). Without one (NODE_ENV other than production, no key) the
 * payloads pass through as they are, and sealed ones fail to decode with a message naming the key
 * they need.
 */
export function createDataConverter(config: Pick<Config, "SVC_ENCRYPTION_KEY">): ServiceDataConverter {
  return {
    failureConverterPath,
    payloadCodecs: [createEncryptionCodec({ keys: config.SVC_ENCRYPTION_KEY ?? [], leavePlain: isOperatorText })],
  };
}
