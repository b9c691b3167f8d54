import { describe, expect, it } from "vitest";
import { databaseErrorReason, Prisma } from "./db.js";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

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
