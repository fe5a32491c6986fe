import { ARCHIVE_ENTRIES } from './archive/index.js';
import { BACKGROUND_ENTRIES } from './background/index.js';
import { BUILTINS_ENTRIES } from './builtins/index.js';
import { CLOUD_ENTRIES } from './cloud/index.js';
import { DEVELOPMENT } from './dev/index.js';
import { DISK } from './disk/index.js';
import { EDITORS_ENTRIES } from './editors/index.js';
import type { CatalogueEntry } from './entry.js';
import { FILESYSTEM_ENTRIES } from './fs/index.js';
import { GIT } from './git/index.js';
import { LAUNCHERS_ENTRIES } from './launchers/index.js';
import { NETWORK_ENTRIES } from './net/index.js';
import { buildRegistry, type Registry } from './registry.js';
import { REMOTE_ENTRIES } from './remote/index.js';
import { RUN_AS_ENTRIES } from './run-as/index.js';
import { SEARCH_ENTRIES } from './search/index.js';
import { SYSTEM_ENTRIES } from './system/index.js';
import { TEXT } from './text/index.js';
import { TRACERS_ENTRIES } from './tracers/index.js';
import { WRAPPERS_ENTRIES } from './wrappers/index.js';

/** The groups of the catalogue, by the name `toolgate catalogue` shows. */
export const GROUPS: Readonly<Record<string, readonly CatalogueEntry[]>> = {
  text: TEXT,
  git: [GIT],
  development: DEVELOPMENT,
  filesystem: FILESYSTEM_ENTRIES,
  search: SEARCH_ENTRIES,
  archive: ARCHIVE_ENTRIES,
  network: NETWORK_ENTRIES,
  remote: REMOTE_ENTRIES,
  cloud: CLOUD_ENTRIES,
  system: SYSTEM_ENTRIES,
  editors: EDITORS_ENTRIES,
  wrappers: WRAPPERS_ENTRIES,
  'run-as': RUN_AS_ENTRIES,
  launchers: LAUNCHERS_ENTRIES,
  background: BACKGROUND_ENTRIES,
  tracers: TRACERS_ENTRIES,
  builtins: BUILTINS_ENTRIES,
  disk: DISK,
};

/** Every catalogue entry, group by group. */
export const CATALOGUE: readonly CatalogueEntry[] = Object.values(GROUPS).flat();

/**
 * Everything the classifier knows about commands, by name. A name that is not here is an
 * unknown program: not read-only, and possibly destructive. Checked once, when loaded.
 */
export const REGISTRY: Registry = buildRegistry(CATALOGUE);
