/**
 * Canonical JSON: the exact text a record's hash is computed over, so that anyone (another
 * language, a later engine) can recompute it from the parsed record.
 *
 * It is RFC 8785 (JCS) for every value toolgate records: object keys sorted by UTF-16 code
 * units (what `Array.prototype.sort` does), no whitespace, numbers in ECMAScript's shortest
 * round-trip form, strings escaped as `JSON.stringify` escapes them. Two deliberate choices:
 * - Lone surrogates are written as `\udxxx` escapes (JCS rejects them). Tool inputs are
 *   arbitrary strings and refusing to log one would be worse than a deterministic escape.
 * - Object members whose value is `undefined` are left out, as `JSON.stringify` does: they
 *   cannot exist in JSON, so the record still says exactly what the JSON input said.
 *
 * Anything that is not JSON data is refused rather than coerced, because coercion would make
 * the log say something other than what was decided on: non-finite numbers, bigints,
 * functions, symbols, `undefined` in arrays, cycles, and objects that are not plain (Date,
 * Map, Buffer, class instances: `JSON.stringify` would silently turn them into something else).
 */

export class CanonicalError extends Error {
  override name = 'CanonicalError';
  readonly kind = 'not-json-data';
  constructor(
    /** JSON pointer to the offending value. */
    readonly pointer: string,
    what: string,
  ) {
    super(`${pointer === '' ? 'the value' : pointer} is ${what}, which JSON cannot represent exactly`);
  }
}

export function canonicalize(value: unknown): string {
  // Every record is written through here two or three times, so the common case (JSON data,
  // not deeply nested) takes one pass that keeps no path and no set of open containers. What
  // it does not expect (a value JSON cannot hold; a cycle, seen as depth) is written again by
  // the careful writer, which names where the problem is: the output is the same either way.
  return quick(value, 0) ?? write(value, [], new Set());
}

/** Past this depth the careful writer takes over (it finds cycles; JSON this deep is rare). */
const QUICK_DEPTH = 64;

/** The canonical text of plain JSON data; undefined for anything else (then `write` decides). */
function quick(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= QUICK_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = quick(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return undefined;
      const record = value as Record<string, unknown>;
      let out = '{';
      for (const key of Object.keys(record).sort()) {
        const member = record[key];
        if (member === undefined) continue;
        const text = quick(member, depth + 1);
        if (text === undefined) return undefined;
        out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${text}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

function write(value: unknown, path: string[], open: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalError(pointer(path), String(value));
      // JSON.stringify prints ECMAScript's Number::toString, which is what JCS specifies (and -0 as 0).
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? writeArray(value, path, open) : writeObject(value, path, open);
    default:
      throw new CanonicalError(
        pointer(path),
        typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`,
      );
  }
}

function writeArray(items: unknown[], path: string[], open: Set<object>): string {
  enter(items, path, open);
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    path.push(String(i));
    out += write(items[i], path, open);
    path.pop();
  }
  open.delete(items);
  return `${out}]`;
}

function writeObject(obj: object, path: string[], open: Set<object>): string {
  return `{${members(obj, path, open)
    .map((m) => m.text)
    .join(',')}}`;
}

/** One member of an object in canonical form: `text` is `"key":value`. */
export interface CanonicalMember {
  key: string;
  text: string;
}

/**
 * The canonical members of an object, in canonical order: `{` + their texts joined by `,` +
 * `}` is its canonical JSON. Lets a caller write an object with and without a member from
 * one serialization.
 */
export function canonicalMembers(obj: object): CanonicalMember[] {
  return quickMembers(obj) ?? members(obj, [], new Set());
}

/** `canonicalMembers` of plain JSON data in one pass, as `quick`; undefined for anything else. */
function quickMembers(obj: object): CanonicalMember[] | undefined {
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = obj as Record<string, unknown>;
  const out: CanonicalMember[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    const text = quick(member, 1);
    if (text === undefined) return undefined;
    out.push({ key, text: `${JSON.stringify(key)}:${text}` });
  }
  return out;
}

function members(obj: object, path: string[], open: Set<object>): CanonicalMember[] {
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    throw new CanonicalError(pointer(path), `a ${obj.constructor?.name ?? 'non-plain'} object`);
  }
  enter(obj, path, open);
  const record = obj as Record<string, unknown>;
  const out: CanonicalMember[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    path.push(key);
    out.push({ key, text: `${JSON.stringify(key)}:${write(member, path, open)}` });
    path.pop();
  }
  open.delete(obj);
  return out;
}

function enter(container: object, path: string[], open: Set<object>): void {
  if (open.has(container)) throw new CanonicalError(pointer(path), 'a cycle');
  open.add(container);
}

/** RFC 6901 JSON pointer. */
export function pointer(path: readonly string[]): string {
  return path.map((p) => `/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
