/** How a whole-number setting reads: its fallback when unset or empty, its bounds, and what it counts (for the message). */
export type WholeNumber = { fallback: number; min: number; max?: number; means: string };

/**
 * A whole-number setting's value from its raw text (an environment variable): the fallback when it
 * is unset or empty, else an integer within the bounds, or an error naming the setting, what it
 * means and what it was given, so an operator can correct it at start.
 */
export const wholeNumberSetting = (name: string, raw: string | undefined, setting: WholeNumber): number => {
  if (raw === undefined || raw === '') return setting.fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < setting.min || (setting.max !== undefined && value > setting.max))
    throw new Error(`${name} must be ${setting.means}, got "${raw}".`);
  return value;
};
