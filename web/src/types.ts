// The shapes the dashboard reads from the API, named from the types generated from the API's
// OpenAPI document (api-types.ts; `npm run web:types`): a changed endpoint breaks this build.
import { pathsApiRunsGetParametersQueryTriggerValues, type components } from "./api-types";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];

export type ConfigField = Schemas["ConfigField"];
export type FieldType = ConfigField["type"];
export type ConfigSchema = Record<string, ConfigField>;

export type CatalogEntry = Schemas["CatalogEntry"];

/** An item of GET /api/flows: the flow and its newest run. */
export type FlowListItem = Schemas["FlowListItem"];
export type LastRun = Schemas["LastRun"];

type SavedDefinition = Schemas["FlowDefinition"];
/** The named fields of an object that takes others too (Omit would keep only its index signature). */
type Named<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * A node of a definition. The API keeps fields it does not know as they are; `position` is the
 * editor's own (where it placed the node), so the API's document does not name it.
 */
export type FlowNode = SavedDefinition["nodes"][number] & { position?: { x: number; y: number } };
export type FlowEdge = SavedDefinition["edges"][number];
export type FlowDefinition = Omit<Named<SavedDefinition>, "nodes"> & { nodes: FlowNode[]; [field: string]: unknown };

export type FlowDetail = Omit<Schemas["FlowDetail"], "definition"> & { definition: FlowDefinition };
export type ScheduleView = Schemas["ScheduleView"];

export type RunStatus = Schemas["RunSummary"]["status"];

/** What starts a run (GET /api/runs?trigger=): the values the API's filter takes. */
export const RUN_TRIGGERS = pathsApiRunsGetParametersQueryTriggerValues;

export type RunSummary = Schemas["RunSummary"];
export type RunDetail = Schemas["RunDetail"];
export type Step = Schemas["Step"];
/** A node of the flow version a run pinned, in the order the engine runs them. */
export type RunNode = Schemas["RunNode"];
/** GET /api/runs/{id}/steps; `nodes` and `edges` are null when the run's version is gone. */
export type RunSteps = Schemas["RunSteps"];

/** An entry of GET /api/logs: written by log and debug nodes, a code node's console, env.log. */
export type LogEntry = Schemas["LogEntry"];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A stored credential as the API shows it: never a secret value. */
export type Credential = Schemas["Credential"];
