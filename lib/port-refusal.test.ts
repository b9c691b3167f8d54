import { describe, expect, it } from "vitest";
import { portRefusal } from "./port-refusal.js";

describe("port errors", () => {
  it("name what listens and the setting; ports that 0 turns off say so", () => {
    expect(portRefusal("PORT", "127.0.0.1", 3000)).toBe(
      "API cannot listen on 127.0.0.1:3000: port 3000 is already in use (set PORT to a free port)",
    );
    expect(portRefusal("WORKER_METRICS_PORT", "127.0.0.1", 9465)).toBe(
      "Worker metrics cannot listen on 127.0.0.1:9465: port 9465 is already in use (set WORKER_METRICS_PORT to a free port, or 0 to turn it off)",
    );
    expect(portRefusal("API_METRICS_PORT", "::1", 9464)).toMatch(/^API metrics cannot listen on ::1:9464: /);
  });

  it("say why when the port is not simply taken", () => {
    const denied = Object.assign(new Error("listen EACCES: permission denied 0.0.0.0:80"), { code: "EACCES" });
    expect(portRefusal("PORT", "0.0.0.0", 80, denied)).toBe(
      "API cannot listen on 0.0.0.0:80: listen EACCES: permission denied 0.0.0.0:80 (set PORT to a free port)",
    );
    const taken = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
    expect(portRefusal("TEMPORAL_DEV_PORT", "127.0.0.1", 7233, taken)).toBe(
      "The Temporal dev server cannot listen on 127.0.0.1:7233: port 7233 is already in use (set TEMPORAL_DEV_PORT to a free port)",
    );
  });
});
