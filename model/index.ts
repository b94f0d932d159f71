// Subsquid's typeorm-config loads entities from <project>/lib/model, while the codegen writes them
// to src/model (compiled to lib/src/model). This re-export joins the two conventions.
export * from '../src/model'
