// How every bundle of the workflows is made (the worker's at start, `npm run build`'s, the tests').

/**
 * The modules every workflow shares, evaluated once per workflow context instead of once per
 * workflow (the SDK's reusable context loads a workflow's modules afresh for each run otherwise):
 * the SDK's workflow API and our workflows with all they import. None of them keeps state of a
 * run at module level (activity proxies, signal and search attribute definitions are constants),
 * and the SDK freezes them. Every bundle of the workflows preloads them (build, tests, worker).
 */
export const preloadedWorkflowModules = (entry: string): string[] => ["@temporalio/workflow", entry];
