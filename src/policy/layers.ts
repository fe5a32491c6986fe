import { type CompiledPolicy, compilePolicy } from './compile.js';
import { type ReadOptions, readPolicyLayers } from './layer-files.js';
import { type Layer, parsePolicyText } from './load.js';

export {
  BUILTIN_POLICIES,
  builtinPolicyFile,
  discoverPolicyFiles,
  type LayerOptions,
  type PolicyParser,
  type ReadOptions,
  readPolicyLayers,
} from './layer-files.js';

/** Reads every file (following `extends`) and compiles them; any error refuses the whole policy. */
export function loadPolicyFiles(
  entries: readonly { file: string; layer: Layer }[],
  options: ReadOptions = {},
): CompiledPolicy {
  return compilePolicy(readPolicyLayers(entries, parsePolicyText, options));
}
