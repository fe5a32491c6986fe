/** `*` matches any run of characters (spaces included); everything else is literal. */
export function starGlob(pattern: string, flags = ''): RegExp {
  return new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`, flags);
}

export function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
