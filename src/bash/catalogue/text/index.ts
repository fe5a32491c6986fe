import type { CatalogueEntry } from '../entry.js';
import { AWK } from './awk.js';
import { TEXT_FILTERS } from './filters.js';
import { JQ } from './jq.js';
import { SED } from './sed.js';

/** Text filters (formerly src/bash/commands/text.ts). */
export const TEXT: readonly CatalogueEntry[] = [SED, AWK, JQ, ...TEXT_FILTERS];
