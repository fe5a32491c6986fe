import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { esc, junitXml } from '../../src/cli/junit.js';

/**
 * JUnit XML from `toolgate test --format junit` carries policy text (test names, command lines,
 * reasons) that anyone may write: whatever it holds, the report must stay well-formed XML 1.0
 * and say the same text back.
 */
const fromXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
const xmlChar = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

describe('JUnit XML text', () => {
  it('escapes any string to legal XML content that reads back as the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = esc(s);
        expect(out).toMatch(xmlChar);
        expect(out).not.toMatch(/[<>"']/);
        expect(out).not.toMatch(/&(?!(lt|gt|quot|apos|amp);)/);
        // only what XML cannot hold at all changes, to U+FFFD
        const legal = s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
        expect(fromXml(out)).toBe(legal);
      }),
      { numRuns: 2000 },
    );
  });

  it('a hostile test name cannot open an element or end the report early', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (name, details) => {
        const xml = junitXml('t', [
          { name: 's', cases: [{ name, file: 'p.yaml', line: 3, failure: { message: name, details } }] },
        ]);
        expect(xml.match(/</g)).toHaveLength(9);
        expect(xml).toMatch(xmlChar);
      }),
      { numRuns: 500 },
    );
  });
});
