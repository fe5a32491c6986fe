import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

/** The engine version, recorded in every decision log entry. */
export const ENGINE_VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
).version;
