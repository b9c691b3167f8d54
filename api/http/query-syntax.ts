// Query strings are read by Express 5's simple parser (node:querystring): `flow_id[$ne]=x` is a
// parameter named "flow_id[$ne]", which no schema declares, so it was dropped without a word and
// a filter the caller meant to apply was not. Operators, brackets and dotted names are no syntax
// of this API: a request that uses them on a route with query parameters answers 400 instead.
import { HttpError } from "./errors.js";

/** `name[...]`, `name[]`, `$op`, `name.$op`, `name.op`: how other parsers spell operators, arrays and objects. */
const OPERATOR_SYNTAX = /[[\]$]|\./;

/**
 * Throws 400 validation_failed naming the first query parameter that uses operator or bracket
 * syntax (one the route does not declare, with `[`, `]`, `$` or `.` in its name).
 */
export function refuseOperatorSyntax(query: object, declared: ReadonlySet<string>): void {
  for (const name of Object.keys(query)) {
    if (declared.has(name) || !OPERATOR_SYNTAX.test(name)) continue;
    const parameter = name.split(/[[.]/)[0]!.replace(/^\$+/, "") || name;
    const message = `Query parameter ${JSON.stringify(name)}: operators, brackets and dotted names are not supported; give ${parameter}=<value>`;
    throw new HttpError(400, "validation_failed", message, {
      details: [{ path: `query.${name.slice(0, 100)}`, message: "operator and bracket syntax is not supported" }],
    });
  }
}
