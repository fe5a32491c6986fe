import type { CatalogueEntry } from '../entry.js';
import { BUILDS } from './builds.js';
import { INTERPRETERS } from './interpreters.js';
import { PACKAGES } from './packages.js';

/** Development tools (formerly src/bash/commands/dev.ts): almost all run code the line does not show. */
export const DEVELOPMENT: readonly CatalogueEntry[] = [...PACKAGES, ...BUILDS, ...INTERPRETERS];
