// Temporal's failure converter with each failure's message and stack trace moved into a payload
// (its "encoded attributes"), so the payload codec seals them like any other payload
// (core/engine/data-converter.ts): an error quoting a run's data is not plain text in
// Temporal's store. CommonJS because Temporal require()s it by path in clients and bundles it
// into the workflow sandbox.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS module, on purpose (above)
const { DefaultFailureConverter } = require("@temporalio/common");

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
