import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The engine version, recorded in every decision log entry. */
export const ENGINE_VERSION: string = (require('../package.json') as { version: string }).version;
