import { ARCHIVE } from './archive.js';
import { BACKGROUND } from './background.js';
import { BUILTINS } from './builtins.js';
import { CLOUD } from './cloud.js';
import { EDITORS } from './editors.js';
import { FILESYSTEM } from './fs.js';
import { LAUNCHERS } from './launchers.js';
import { NETWORK } from './net.js';
import { REMOTE } from './remote.js';
import { RUN_AS } from './run-as.js';
import { SEARCH } from './search.js';
import type { CommandTable } from './spec.js';
import { SYSTEM } from './system.js';
import { TRACERS } from './tracers.js';
import { WRAPPERS } from './wrappers.js';

/**
 * The hand-written tables not yet converted to catalogue entries (src/bash/catalogue), by the
 * name the registry reports them under. The registry refuses a name two of them define.
 */
export const LEGACY_TABLES: Readonly<Record<string, CommandTable>> = {
  system: SYSTEM,
  network: NETWORK,
  cloud: CLOUD,
  remote: REMOTE,
  editors: EDITORS,
  archive: ARCHIVE,
  filesystem: FILESYSTEM,
  search: SEARCH,
  wrappers: WRAPPERS,
  'run-as': RUN_AS,
  launchers: LAUNCHERS,
  background: BACKGROUND,
  tracers: TRACERS,
  builtins: BUILTINS,
};
