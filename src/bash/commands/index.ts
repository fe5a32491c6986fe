import { ARCHIVE } from './archive.js';
import { BACKGROUND } from './background.js';
import { BUILTINS } from './builtins.js';
import { CLOUD } from './cloud.js';
import { DEVELOPMENT } from './dev.js';
import { EDITORS } from './editors.js';
import { FILESYSTEM } from './fs.js';
import { GIT } from './git.js';
import { LAUNCHERS } from './launchers.js';
import { NETWORK } from './net.js';
import { REMOTE } from './remote.js';
import { RUN_AS } from './run-as.js';
import { SEARCH } from './search.js';
import type { CommandTable } from './spec.js';
import { SYSTEM } from './system.js';
import { TEXT } from './text.js';
import { TRACERS } from './tracers.js';
import { WRAPPERS } from './wrappers.js';

/**
 * Everything the classifier knows about commands, by name. A name that is not here is an
 * unknown program: not read-only, and possibly destructive.
 */
export const COMMANDS: CommandTable = Object.freeze(
  Object.assign(
    Object.create(null) as Record<string, never>,
    SYSTEM,
    NETWORK,
    CLOUD,
    REMOTE,
    DEVELOPMENT,
    EDITORS,
    ARCHIVE,
    FILESYSTEM,
    TEXT,
    SEARCH,
    GIT,
    WRAPPERS,
    RUN_AS,
    LAUNCHERS,
    BACKGROUND,
    TRACERS,
    BUILTINS,
  ),
);
