import { LEGACY_TABLES } from '../commands/index.js';
import { DEVELOPMENT } from './dev/index.js';
import { DISK } from './disk/index.js';
import type { CatalogueEntry } from './entry.js';
import { GIT } from './git/index.js';
import { buildRegistry, type Registry } from './registry.js';
import { TEXT } from './text/index.js';

/** Every catalogue entry, group by group. */
export const CATALOGUE: readonly CatalogueEntry[] = [...TEXT, GIT, ...DEVELOPMENT, ...DISK];

/**
 * Everything the classifier knows about commands, by name. A name that is not here is an
 * unknown program: not read-only, and possibly destructive. Checked once, when loaded.
 */
export const REGISTRY: Registry = buildRegistry(CATALOGUE, LEGACY_TABLES);
