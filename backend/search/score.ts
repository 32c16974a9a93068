/**
 * The search score (docs/backend.md, "Ranking"): match quality first, then population.
 *   score = MATCH (2 exact, 1 prefix) + OWN_NAME (0.1 when the matched name is the place's own GeoNames name, not an
 *   alternate) + log10(1 + population) / 10
 * The population term stays below 0.74 (log10 of 22 M is 7.34), so with OWN_NAME it stays below 1: every exact match
 * outranks every prefix match; within one match kind an own name is worth one decade of population.
 */

/** Score of a match on the whole normalised name. */
export const EXACT = 2;
/** Score of a match on the start of a normalised name. */
export const PREFIX = 1;
/** Bonus when the matched name is the place's own name (or its ASCII form) rather than an alternate name. */
export const OWN_NAME = 0.1;

/** The population term: log10(1 + population) / 10; 0 when the population is unknown (stored as 0). */
export function populationScore(population: number): number {
  return Math.log10(1 + population) / 10;
}
