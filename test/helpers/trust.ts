import fs from 'node:fs';
import path from 'node:path';
import { recordTrust } from '../../src/policy/trust.js';

/** Writes a workspace policy file and trusts its content, as `toolgate trust` does, in `configHome`. */
export function writeTrusted(configHome: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  recordTrust(path.join(configHome, 'toolgate', 'trusted.json'), [{ file, text }]);
}
