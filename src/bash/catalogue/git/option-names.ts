import type { SubcommandOptions } from '../entry.js';

/**
 * The options of git's subcommands that deny and ask rules name (`Bash(git push --force *)`),
 * each option's spellings together, so `-f` meets a rule on `--force` (and `-uf`, `--force=x`).
 * Spellings only: what each subcommand does is its analyzer's (subcommands.ts).
 */
export const GIT_SUBCOMMAND_OPTIONS: Readonly<Record<string, SubcommandOptions>> = {
  push: { options: ['f|force', 'd|delete', 'u|set-upstream', 'n|dry-run', 'q|quiet', 'v|verbose'] },
  fetch: { options: ['f|force', 'p|prune', 'P|prune-tags', 'n|dry-run', 'q|quiet', 'v|verbose', 'a|append'] },
  pull: { options: ['f|force', 'p|prune', 'n|dry-run', 'q|quiet', 'v|verbose', 'r|rebase'] },
  branch: {
    options: [
      'd|delete',
      'f|force',
      'm|move',
      'c|copy',
      'r|remotes',
      'a|all',
      'q|quiet',
      'v|verbose',
      'l|list',
    ],
    compound: { D: ['delete', 'force'], M: ['move', 'force'], C: ['copy', 'force'] },
  },
  tag: { options: ['d|delete', 'f|force', 'a|annotate', 's|sign', 'm|message', 'l|list', 'v|verify'] },
  clean: { options: ['f|force', 'n|dry-run', 'q|quiet', 'i|interactive', 'e|exclude'] },
  checkout: { options: ['f|force', 'q|quiet', 'm|merge', 'p|patch', 't|track'] },
  switch: {
    options: [
      'f|force|discard-changes',
      'c|create',
      'C|force-create',
      'd|detach',
      'q|quiet',
      'm|merge',
      't|track',
    ],
  },
  restore: { options: ['s|source', 'S|staged', 'W|worktree', 'p|patch', 'q|quiet', 'm|merge'] },
  rm: { options: ['f|force', 'n|dry-run', 'q|quiet'] },
  commit: {
    options: [
      'a|all',
      'm|message',
      'n|no-verify',
      'q|quiet',
      'v|verbose',
      's|signoff',
      'F|file',
      'C|reuse-message',
    ],
  },
  stash: { options: ['q|quiet', 'p|patch', 'u|include-untracked', 'a|all', 'k|keep-index', 'm|message'] },
  worktree: { options: ['f|force'] },
  submodule: { options: ['f|force', 'q|quiet'] },
};
