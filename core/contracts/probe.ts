/** Input of the `probe` workflow: proves that Temporal, the worker and the database are wired. */
export interface ProbeInput {
  message: string;
}

export interface ProbeResult {
  /** Id of the log entry the activity wrote (a bigint, as a string). */
  logEntryId: string;
}
