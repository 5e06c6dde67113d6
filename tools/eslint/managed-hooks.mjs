// Module resolution hooks for the managed ESLint (registered by resolve-managed.mjs).
//
// Node resolves the imports of a project's eslint.config.* from the config's own
// folder. A project that relies on the managed ESLint has no node_modules of its own,
// so a bare import such as "@eslint/js" or "typescript-eslint" is retried from this
// install when (and only when) the project cannot resolve it itself.
const managed = new URL("./package.json", import.meta.url).href;

function isBare(specifier) {
  return !/^(\.{0,2}\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(specifier);
}

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (err && err.code === "ERR_MODULE_NOT_FOUND" && isBare(specifier)) {
      return nextResolve(specifier, { ...context, parentURL: managed });
    }
    throw err;
  }
}
