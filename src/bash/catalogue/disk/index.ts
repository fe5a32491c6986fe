import type { CatalogueEntry } from '../entry.js';
import { MKFS } from './mkfs.js';

/** Programs that write a whole disk or partition (new; they were unknown programs). */
export const DISK: readonly CatalogueEntry[] = [MKFS];
