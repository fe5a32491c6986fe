/** The protected-path list lives with the policy, which decides on it first; the sandbox enforces the same list. */
export { protectedEntryOf, protectedNames } from '../policy/protected.js';
