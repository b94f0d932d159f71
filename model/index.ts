export * from "./generated"
