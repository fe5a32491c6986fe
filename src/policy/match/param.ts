import { starGlob } from './glob.js';

/** Tool(param:value): a top-level scalar input field, `*` as wildcard; objects and arrays never match. */
export function compileParamPattern(name: string, pattern: string): (input: unknown) => boolean {
  const re = starGlob(pattern, 's');
  return (input) => {
    if (input === null || typeof input !== 'object') return false;
    if (!Object.hasOwn(input, name)) return false;
    const value = (input as Record<string, unknown>)[name];
    if (value === undefined || value === null || typeof value === 'object') return false;
    return re.test(String(value));
  };
}
