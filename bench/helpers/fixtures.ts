// What every benchmark stack starts from: a Temporal dev server with the service's search
// attributes registered, and the benchmark's user.
import { newUserSchema } from "../../api/routes/users/users.schema.js";
import { locateTemporalCli, serviceSearchAttributes, startTemporalDevServer } from "../../scripts/infra/temporal.js";

export async function benchTemporal() {
  return startTemporalDevServer({
    cli: await locateTemporalCli(),
    uiPort: false,
    searchAttributes: serviceSearchAttributes,
  });
}

export const benchUser = newUserSchema.parse({
  email: "bench@example.com",
  password: "bench-password-1",
  name: "B",
  workspace: "B",
});
