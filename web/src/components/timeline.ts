// Moved to ../runs/timeline.tsx; this re-export keeps the imports of files other branches are editing (flow editor, runs list) working until they import the new path.
export * from "../runs/timeline";
