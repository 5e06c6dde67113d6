// Loaded with `node --import` by orchestrate when it runs the managed ESLint.
import { register } from "node:module";

register("./managed-hooks.mjs", import.meta.url);
