/**
 * What the hook bundle (hook.cjs) uses of the Bash classifier, bundled apart as hook-bash.cjs:
 * the classifier's command tables and tree-sitter are half of the hook's code, and only Bash
 * calls need them. The build points every import of src/bash made outside src/bash at a small
 * module that requires this bundle on first use (see scripts/bundle-cli.mjs), so a name used
 * there must be exported here, or the build fails.
 */
export { analyzeBash, classifyBash, factsOf } from '../bash/classify.js';
export { variableRisk } from '../bash/environment.js';
export { optionSpellings } from '../bash/option-spellings.js';
export { isDynamic } from '../bash/word.js';
