// What every benchmark stack starts from: a Temporal dev server with the service's search
// attributes registered, and the benchmark's user.
import { newUserSchema } from "../../api/routes/users/users.schema.js";
import { locateTemporalCli, startTemporalDevServer } from "../../scripts/infra/temporal.js";
import { SEARCH_ATTRIBUTES } from "../../core/contracts/run-flow.js";

export async function benchTemporal() {
  return startTemporalDevServer({
    cli: await locateTemporalCli(),
    uiPort: false,
    searchAttributes: Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((name) => [name, "Keyword" as const])),
  });
}

export const benchUser = newUserSchema.parse({
  email: "bench@example.com",
  password: "bench-password-1",
  name: "B",
  workspace: "B",
});
