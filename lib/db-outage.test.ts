import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, whileDatabaseUnavailable } from "./db-outage.js";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

describe("whileDatabaseUnavailable", () => {
  it("sends the write again while the database does not answer, and returns its answer", async () => {
    let calls = 0;
    const answer = await whileDatabaseUnavailable(
      async () => {
        calls++;
        if (calls < 3) throw refused();
        return "written";
      },
      { deadline: Date.now() + 10_000 },
    );
    expect(answer).toBe("written");
    expect(calls).toBe(3);
  });

  it("throws an error of the statement itself at once", async () => {
    let calls = 0;
    const violation = Object.assign(new Error("duplicate key"), { code: "23505" });
    await expect(
      whileDatabaseUnavailable(
        async () => {
          calls++;
          throw violation;
        },
        { deadline: Date.now() + 10_000 },
      ),
    ).rejects.toBe(violation);
    expect(calls).toBe(1);
  });

  it("gives up once its deadline has passed", async () => {
    let calls = 0;
    await expect(
      whileDatabaseUnavailable(
        async () => {
          calls++;
          throw refused();
        },
        { deadline: Date.now() + 100 },
      ),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toBe(1);
  });

  it("tells an outage (refused connection, shutdown, lost connection) from a refused statement", () => {
    expect(isDatabaseUnavailable(refused())).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: refused() }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("syntax error"), { code: "42601" }))).toBe(false);
  });
});
