// The one way a process builds a Temporal Client (the API's, its in-process worker's eager one,
// the worker process's, the svc CLI's, the tests' and benches'): the namespace of its
// configuration, the process's one data converter (payloads sealed at rest,
// core/engine/data-converter.ts), which every client must take, and its plugins (tracing), on a
// connection of connection.ts, or a worker's own for eager starts.
import { Client, type ClientOptions, type ClientPlugin } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";

export function createTemporalClient(
  config: { TEMPORAL_NAMESPACE?: string },
  connection: NonNullable<ClientOptions["connection"]>,
  { dataConverter, plugins = [] }: { dataConverter: DataConverter; plugins?: ClientPlugin[] },
): Client {
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, plugins, dataConverter });
}
