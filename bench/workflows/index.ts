// The bench worker registers the product's workflows and the baseline side by side.
export * from "../../worker/workflows/index.js";
export { bareThreeActivities } from "./bare.workflow.js";
