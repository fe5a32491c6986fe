import fs from 'node:fs';
import path from 'node:path';

export interface LabelledLine {
  command: string;
  readOnly: boolean;
  destructive: boolean | null;
  family: string;
  note: string;
}

export function loadCorpus(name: string): LabelledLine[] {
  const file = path.join(import.meta.dirname, '..', 'fixtures', name);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LabelledLine);
}
