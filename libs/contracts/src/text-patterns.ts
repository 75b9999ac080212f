// Patterns that more than one service checks untrusted text against. Each is linear in the
// length of its input (scripts/redos.spec.ts checks every pattern of the codebase with recheck),
// and each caller checks the length first, so no pattern ever runs over more than a bounded text.

/** RFC 5321's limit on a forward path; longer text is not an email address and is never matched. */
export const EMAIL_ADDRESS_MAX_LENGTH = 254;

/**
 * A local part without spaces or '@', then dot-separated labels without spaces, '@' or '.'. The
 * labels exclude the dot, so there is one way to split a domain: the pattern cannot backtrack
 * quadratically as `[^\s@]+\.[^\s@]+$` does (a 30,000-character cell took seconds).
 */
export const EMAIL_ADDRESS = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** An email address as the importers and account rules accept one: bounded length first, then the pattern. */
export const isEmailAddress = (value: string): boolean => value.length <= EMAIL_ADDRESS_MAX_LENGTH && EMAIL_ADDRESS.test(value);

/**
 * `value` without the run of `char` at its end, in one backward scan: the linear way to drop trailing
 * zeros or slashes (a lookbehind pattern is linear too, but no ReDoS checker can prove it without
 * fuzzing, which is random and bound by time).
 */
export const trimTrailing = (value: string, char: string): string => {
  let end = value.length;
  while (end > 0 && value[end - 1] === char) end -= 1;
  return value.slice(0, end);
};
