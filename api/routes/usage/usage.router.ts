// /api/usage: what model calls cost (per day, flow, model and run) and the price table.
import { z } from "zod";
import { actorId } from "../../../core/workspaces/actor.js";
import type { UsageService } from "../../../core/usage/usage.service.js";
import { auditContext } from "../../http/audit-context.js";
import { authorize } from "../../http/authenticate.middleware.js";
import { documentedRouter, type ApiDocs, type DeclareRoute } from "../../http/openapi.js";
import { runIdSchema } from "../runs/runs.schema.js";
import {
  budgetIdSchema,
  budgetSchema,
  setBudgetSchema,
  priceSchema,
  removePriceQuerySchema,
  runUsageSchema,
  setPriceSchema,
  usageQuerySchema,
  workspaceUsageSchema,
} from "./usage.schema.js";

export function createUsageRouter({ usage }: { usage: UsageService }, docs: ApiDocs) {
  const { router, route } = documentedRouter(docs, "/api/usage", "usage");
  usageReadRoutes(route, usage);
  priceRoutes(route, usage);
  budgetRoutes(route, usage);
  return router;
}

/** What the workspace's and a run's model calls cost. */
function usageReadRoutes(route: DeclareRoute, usage: UsageService) {
  route(
    {
      method: "get",
      scope: "read",
      path: "/",
      summary:
        "Tokens and cost of the workspace's model calls over whole UTC days (the last 30 by default): the total, per day, per flow and per model",
      query: usageQuerySchema,
      responses: { 200: { description: "The usage", schema: workspaceUsageSchema }, 400: "Bad range" },
    },
    async (req, res) => {
      const { from, to, flow_id } = req.input.query;
      res.json(await usage.workspace(req.input.workspaceId, { from, to, flowId: flow_id }));
    },
  );

  route(
    {
      method: "get",
      scope: "read",
      path: "/runs/:id",
      summary:
        "Tokens and cost of a run's model calls: the total, per node (an ai.agent node's agent run included) and each call",
      params: z.object({ id: runIdSchema }),
      responses: { 200: { description: "The run's usage", schema: runUsageSchema }, 404: "No such run" },
    },
    async (req, res) => {
      res.json(await usage.run(req.input.workspaceId, req.input.params.id));
    },
  );
}

/** The price table: read by members, set and removed by admins. */
function priceRoutes(route: DeclareRoute, usage: UsageService) {
  route(
    {
      method: "get",
      scope: "read",
      path: "/prices",
      summary: "The price table: the workspace's own prices and the shipped defaults it does not replace",
      responses: { 200: { description: "The prices", schema: z.object({ items: z.array(priceSchema) }) } },
    },
    async (req, res) => {
      res.json({ items: await usage.prices(req.input.workspaceId) });
    },
  );

  route(
    {
      method: "put",
      scope: "admin",
      path: "/prices",
      summary: "Set the workspace's own price of a model (calls from now on; recorded calls keep their cost)",
      body: setPriceSchema,
      responses: {
        200: { description: "The price", schema: priceSchema },
        400: "Bad price",
        403: "Admins and owners only",
      },
    },
    authorize("settings:manage"),
    async (req, res) => {
      const { workspaceId, auth, body } = req.input;
      res.json(await usage.setPrice(workspaceId, actorId(auth), body, auditContext(req)));
    },
  );

  route(
    {
      method: "delete",
      scope: "admin",
      path: "/prices",
      summary: "Remove the workspace's own price of a model: the shipped default, if any, applies again",
      query: removePriceQuerySchema,
      responses: { 204: "Removed", 403: "Admins and owners only", 404: "The workspace sets no price of this model" },
    },
    authorize("settings:manage"),
    async (req, res) => {
      const { provider, model } = req.input.query;
      await usage.removePrice(req.input.workspaceId, provider, model, auditContext(req));
      res.status(204).end();
    },
  );
}

/** Budgets: read by members, set and removed by admins. A reached budget holds model calls back. */
function budgetRoutes(route: DeclareRoute, usage: UsageService) {
  route(
    {
      method: "get",
      scope: "read",
      path: "/budgets",
      summary: "The workspace's budgets and its flows', each with what its current period has spent",
      responses: { 200: { description: "The budgets", schema: z.object({ items: z.array(budgetSchema) }) } },
    },
    async (req, res) => {
      res.json({ items: await usage.budgets(req.input.workspaceId) });
    },
  );

  route(
    {
      method: "put",
      scope: "admin",
      path: "/budgets",
      summary:
        "Set a budget (one per workspace or flow, metric and period): an agent's model call or an ai.prompt node that finds it reached waits for an admin (a wait with reason budget); a raise that leaves it under its limit approves the waits no budget holds any more",
      body: setBudgetSchema,
      responses: {
        200: { description: "The budget", schema: budgetSchema },
        400: "Bad budget",
        403: "Admins and owners only",
        404: "No such flow",
      },
    },
    authorize("settings:manage"),
    async (req, res) => {
      const { workspaceId, auth, body } = req.input;
      res.json(await usage.setBudget(workspaceId, actorId(auth), body, auditContext(req)));
    },
  );

  route(
    {
      method: "delete",
      scope: "admin",
      path: "/budgets/:id",
      summary: "Remove a budget: the calls it held back that no other budget holds are approved; the others still wait",
      params: z.object({ id: budgetIdSchema }),
      responses: { 204: "Removed", 403: "Admins and owners only", 404: "No such budget" },
    },
    authorize("settings:manage"),
    async (req, res) => {
      await usage.removeBudget(req.input.workspaceId, req.input.params.id, auditContext(req));
      res.status(204).end();
    },
  );
}
