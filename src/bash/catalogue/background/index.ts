import { type About, handWritten } from '../hand-written.js';
import { BACKGROUND } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  at: ['runs commands later (at, batch)', { readOnly: ['atq'], destructive: ['at now', 'batch', 'atrm 3'] }],
  tmux: ['terminal multiplexer', { destructive: ['tmux new -d ./server'] }],
  screen: ['terminal multiplexer', { destructive: ['screen -dm ./server'] }],
};

export const BACKGROUND_ENTRIES = handWritten(
  BACKGROUND,
  'schedulers and multiplexers: what they run later or leave running',
  ABOUT,
);
