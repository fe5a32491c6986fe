/** Beyond these, a line is "too complex": the answer is immediate, and memory stays bounded. */
export const LIMITS = {
  maxSourceChars: 65_536,
  maxNodes: 60_000,
  maxDepth: 200,
} as const;
