import { type Refusal, refuse } from './refusal.js';

/**
 * Edit's string replacement, pure: the old string must occur exactly once, unless replace_all
 * says every occurrence. Plain string operations only (String.replace would read `$&` and
 * friends in the new string as patterns).
 */
export interface Replaced {
  text: string;
  replacements: number;
}

export function countOccurrences(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length))
    count++;
  return count;
}

export function applyEdit(
  original: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): Replaced | Refusal {
  if (oldString === newString)
    return refuse('no-change', 'old_string and new_string are the same; there is nothing to change.');
  if (oldString === '') {
    if (original !== '')
      return refuse(
        'invalid',
        'old_string is empty, which only creates a new file (or fills an empty one); this file has content.',
      );
    return { text: newString, replacements: 1 };
  }
  const count = countOccurrences(original, oldString);
  if (count === 0)
    return refuse(
      'no-match',
      'old_string was not found in the file; Read the file and copy the text exactly, including whitespace.',
    );
  if (count > 1 && !replaceAll) {
    return refuse(
      'ambiguous',
      `old_string occurs ${count} times; add surrounding lines to make it unique, or set replace_all to change every occurrence.`,
    );
  }
  if (!replaceAll) {
    const at = original.indexOf(oldString);
    return {
      text: original.slice(0, at) + newString + original.slice(at + oldString.length),
      replacements: 1,
    };
  }
  return { text: original.split(oldString).join(newString), replacements: count };
}
