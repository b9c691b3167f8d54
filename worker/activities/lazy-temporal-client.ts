// The Temporal client of activities that start or look at workflows: the process's own when
// given, else one connected on first use (and again after a failed connect).
import type { Client } from "@temporalio/client";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { createTemporalClient } from "../../lib/temporal/client.js";
import { connectTemporalClient } from "../../lib/temporal/connection.js";

export type LazyTemporalClientConfig = Parameters<typeof connectTemporalClient>[0] &
  Parameters<typeof createTemporalClient>[0] &
  Parameters<typeof createDataConverter>[0];

export function lazyTemporalClient(config: LazyTemporalClientConfig, given?: Client): () => Promise<Client> {
  let client: Promise<Client> | undefined = given && Promise.resolve(given);
  return () =>
    (client ??= connectTemporalClient(config).then((connection) =>
      createTemporalClient(config, connection, { dataConverter: createDataConverter(config) }),
    )).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
}
