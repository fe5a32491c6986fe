/**
 * The module the hook bundle sees in place of src/bash: a function for each export of
 * hook-bash.cjs that requires the bundle on its first call. Only a function can stand in for a
 * function; a constant or a class exported there would become a function and mean something
 * else, so `built` (the loaded bundle) is checked first and anything else fails the build.
 */
export function lazyExports(names, built) {
  const wrong = names.filter(
    (name) => typeof built[name] !== 'function' || /^class\b/.test(String(built[name])),
  );
  if (wrong.length > 0)
    throw new Error(
      `src/cli/hook-bash.ts exports ${wrong.join(', ')}, which ${wrong.length === 1 ? 'is not a function' : 'are not functions'}: the hook bundle reaches hook-bash.cjs only through function wrappers; export functions only`,
    );
  return [
    'let bash;',
    "const load = () => (bash ??= require('./hook-bash.cjs'));",
    ...names.map((name) => `export const ${name} = (...args) => load().${name}(...args);`),
  ].join('\n');
}
