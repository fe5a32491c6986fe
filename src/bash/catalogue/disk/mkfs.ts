import { wordMayBeOption } from '../../option-risk.js';
import type { CatalogueEntry } from '../entry.js';

/**
 * mkfs and its kin make a file system, a swap area or an empty signature table on the device
 * (or image file) they name, destroying what was on it. Known as writes that overwrite their
 * operand, so the policy's critical guard sees a disk being overwritten (guards.ts) rather than
 * an unknown program that bypass mode would let through.
 */
export const MKFS: CatalogueEntry = {
  name: 'mkfs',
  aliases: [
    'mkfs.ext2',
    'mkfs.ext3',
    'mkfs.ext4',
    'mkfs.xfs',
    'mkfs.btrfs',
    'mkfs.vfat',
    'mkfs.fat',
    'mkfs.msdos',
    'mkfs.exfat',
    'mkfs.ntfs',
    'mkfs.f2fs',
    'mke2fs',
    'mkswap',
    'wipefs',
    'blkdiscard',
  ],
  summary:
    'makes a file system (a swap area, an empty signature table) on the device or file it names, destroying what was there',
  unknownOptions: 'fail',
  shape: {
    kind: 'escape',
    why: 'every variant has options of its own; whatever is not an option or a size may be the device, so each is taken as overwritten',
    analyze(ctx, sink) {
      for (const w of ctx.args) {
        if (wordMayBeOption(w, ctx.line)) {
          sink.notUnderstood(`${ctx.name}: "${w.raw}" is only known at run time`);
          continue;
        }
        // Options (and their values, which cannot be told apart without each variant's table)
        // change how it formats, never whether it does.
        if (w.value.startsWith('-')) continue;
        if (/^\d+[kKmMgGtT]?$/.test(w.value)) continue;
        sink.write(w, 'overwrite', `${ctx.name} formats ${w.raw}, destroying what is on it`);
      }
    },
  },
  examples: {
    destructive: [
      'mkfs.ext4 /dev/sdb1',
      'mkfs -t ext4 /dev/sdb1',
      'wipefs -a /dev/sdb',
      'mkswap /dev/sdb2 1024',
    ],
  },
};
