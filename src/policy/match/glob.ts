/** `*` matches any run of characters (spaces included); everything else is literal. */
export function starGlob(pattern: string, flags = ''): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, flags);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
