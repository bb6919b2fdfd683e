"""The development server (server: `atlas serve`, partial rebuilds after an edit) and a small
static server for tests and benchmarks (local). May import every stage below it."""
