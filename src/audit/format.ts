/**
 * The constants of decision-log format v1, apart from its zod schema (record.ts): writing a
 * record needs these and nothing heavier, and a hook process writes one record and exits.
 */
export const FORMAT_VERSION = 1;

/** `prev` of the first record: the hash of "no record". */
export const GENESIS = '0'.repeat(64);

export const HEX64 = /^[0-9a-f]{64}$/;
