// The module's entry: its exports, with the signatures assembly/constants.json gives them.
export * from "./generated/exports";
