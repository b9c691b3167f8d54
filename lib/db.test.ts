import { describe, expect, it } from "vitest";
import { databaseErrorReason, isDatabaseUnavailable, Prisma, whileDatabaseUnavailable } from "./db.js";

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

describe("databaseErrorReason", () => {
  it("keeps Prisma's reason and drops its preamble, the calling file's path and the code frame", () => {
    const colorless = new Prisma.PrismaClientUnknownRequestError(
      "\nInvalid `prisma.logEntry.create()` invocation in\n/srv/svc/worker/activities/node.activities.ts:198:31\n\n" +
        "  195 apiKey,\n  197 async log(level, message, data) {\n→ 198   await prisma.logEntry.create(\n" +
        "Value out of range for the type: 2147483648",
      { clientVersion: "6.19.3" },
    );
    expect(databaseErrorReason(colorless)).toBe("Value out of range for the type: 2147483648");
    const minimal = new Prisma.PrismaClientKnownRequestError(
      "\nInvalid `tx.flow.create()` invocation:\n\n\nUnique constraint failed on the fields: (`hook_token`)",
      { code: "P2002", clientVersion: "6.19.3" },
    );
    expect(databaseErrorReason(minimal)).toBe("Unique constraint failed on the fields: (`hook_token`) (P2002)");
  });

  it("says a value nested past Prisma's JSON limit is nested too deeply, and leaves other errors alone", () => {
    const deep = new Prisma.PrismaClientUnknownRequestError(
      "\nInvalid `prisma.logEntry.create()` invocation:\n\n\nJSON Error: recursion limit exceeded at line 1 column 827",
      { clientVersion: "6.19.3" },
    );
    expect(databaseErrorReason(deep)).toBe("the value is nested too deeply to be stored");
    expect(databaseErrorReason(new Error("/srv/file.ts:1:2 boom"))).toBeUndefined();
    expect(databaseErrorReason(refused())).toBeUndefined();
  });
});
