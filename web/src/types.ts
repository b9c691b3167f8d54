// The shapes the dashboard reads from the API, named from the types generated from the API's
// OpenAPI document (api-types.ts; `npm run web:types`): a changed endpoint breaks this build.
import { pathsApiRunsGetParametersQueryTriggerValues, type components, type paths } from "./api-types";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
/** A workspace of the user (GET /api/workspaces), with the user's role in it. */
export type UserWorkspace = Schemas["UserWorkspace"];
export type Member = Schemas["Member"];
export type Invite = Schemas["Invite"];
/** What an invite link shows before it is accepted. */
export type InvitePreview = Schemas["InvitePreview"];
/** The answer to adding a member: an invite and its one-time link, whether an account has the e-mail or not. */
export type InviteCreated = Schemas["InviteCreated"];
/** The answer to offering a member the owner role (202): the member unchanged, and the offer's link. */
export type OwnerOffer = Schemas["OwnerOffer"];
/** A one-time link that sets a member's password. */
export type PasswordResetIssued = Schemas["PasswordResetIssued"];
/** What a password reset link shows before the new password is set. */
export type PasswordResetPreview = Schemas["PasswordResetPreview"];

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
export type FlowVersionItem = Schemas["FlowVersionItem"];
export type FlowVersion = Omit<Schemas["FlowVersion"], "definition"> & { definition: FlowDefinition };
export type FlowTemplate = Schemas["FlowTemplate"];
export type ScheduleView = Schemas["ScheduleView"];

export type RunStatus = Schemas["RunSummary"]["status"];

/** What starts a run (GET /api/runs?trigger=): the values the API's filter takes. */
export const RUN_TRIGGERS = pathsApiRunsGetParametersQueryTriggerValues;

export type RunSummary = Schemas["RunSummary"];
/** A flow's runs waiting at its gates, per key (GET /api/flows/{id}/queue). */
export type FlowQueue = Schemas["FlowQueue"];
/** GET /api/runs's query. */
export type RunsQuery = NonNullable<paths["/api/runs"]["get"]["parameters"]["query"]>;
export type RunDetail = Schemas["RunDetail"];
export type Step = Schemas["Step"];
/** A node of the flow version a run pinned, in the order the engine runs them. */
export type RunNode = Schemas["RunNode"];
/** GET /api/runs/{id}/steps; `nodes` and `edges` are null when the run's version is gone. */
export type RunSteps = Schemas["RunSteps"];

/**
 * A wait as the API shows it (GET /api/waits, GET /api/runs/{id}/waits, GET /api/agent/runs/{id}/waits);
 * a run's and an agent run's lists add `resume_url`.
 */
export type Wait = Schemas["Wait"] & Partial<Pick<Schemas["RunWait"], "resume_url">>;

/** An entry of GET /api/logs: written by log and debug nodes, a code node's console, env.log. */
export type LogEntry = Schemas["LogEntry"];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A webhook endpoint of the workspace's settings, and a delivery of an event to it with its attempts. */
export type Endpoint = Schemas["WebhookEndpoint"];
export type Delivery = Schemas["WebhookDelivery"];
type WebhooksPaths = paths["/api/settings/webhooks"];
/** GET /api/settings/webhooks: a page of endpoints and the signing secret's dates. */
export type EndpointsPage = WebhooksPaths["get"]["responses"][200]["content"]["application/json"];
/** POST /api/settings/webhooks: the endpoint, with the secret when this call generated it. */
export type EndpointCreated = WebhooksPaths["post"]["responses"][201]["content"]["application/json"];

/** The workspace's settings (its error flow). */
export type WorkspaceSettings = Schemas["WorkspaceSettings"];
/** Whose key a language-model provider's calls use, and its last four characters: never the key. */
export type AiKey = Schemas["AiKey"];

/** POST /api/nodes/test: how the node's one run on a sample input went. */
export type NodeTestResult = Schemas["NodeTestResult"];

/** GET /api/metrics: the workspace's figures for the home page. */
export type Metrics = Schemas["WorkspaceMetrics"];

/** A stored credential as the API shows it: never a secret value. */
export type Credential = Schemas["Credential"];

/** The agent catalog (GET /api/agents): presets and tools. */
export type AgentCatalog = Schemas["AgentCatalog"];
export type AgentPreset = AgentCatalog["items"][number];
/** An agent run with its model, tool and approval steps (GET /api/agent/runs/{id}). */
export type AgentRunDetail = Schemas["AgentRunDetail"];
export type AgentStep = Schemas["AgentStep"];
export type AgentLogEntry = Schemas["AgentLogEntry"];
export type AgentMemoryEntry = Schemas["AgentMemoryEntry"];

/** A request's JSON body as the API's document declares it. */
export type RequestBody<P extends keyof paths, M extends "post" | "put" | "patch"> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type FlowStatus = FlowListItem["status"];
/** The least level GET /api/logs lists. */
export type LogLevel = NonNullable<NonNullable<paths["/api/logs"]["get"]["parameters"]["query"]>["level"]>;
export type AiProvider = AiKey["provider"];
export type NewCredentialBody = RequestBody<"/api/credentials", "post">;
export type NewEndpoint = RequestBody<"/api/settings/webhooks", "post">;
export type ApiToken = Schemas["ApiToken"];
export type NewApiToken = RequestBody<"/api/workspace/tokens", "post">;
export type AgentTool = NonNullable<RequestBody<"/api/agent/run", "post">["approval_tools"]>[number];

/** GET /api/usage: tokens and cost per day, flow and model. */
export type WorkspaceUsage = Schemas["WorkspaceUsage"];
/** GET /api/usage/runs/{id}: a run's tokens and cost per node and call. */
export type RunUsage = Schemas["RunUsage"];
export type ModelPrice = Schemas["ModelPrice"];
export type Budget = Schemas["Budget"];
