// npm run tools:temporal-test-server: finds Temporal's time-skipping test server or fetches it with Maven.
import { locateTemporalTestServer } from "./infra/temporal-test-server.js";

const server = await locateTemporalTestServer(process.env, (line) => process.stdout.write(`${line}\n`));
process.stdout.write(`Temporal test server: ${server}\n`);
