/**
 * Name normalisation for place search, the same at data-build time (every name and alternate name) and at query
 * time: Unicode NFD, combining diacritical marks (U+0300–U+036F) removed, lower case, the few Latin letters NFD
 * does not decompose folded (ß → ss, æ → ae, ø → o, ł → l, ...), every run of characters that are not letters,
 * digits or (non-Latin) marks turned into one space, trimmed. "Zürich" → "zurich", "Val-d'Or" → "val d or",
 * "SAN JOSÉ" → "san jose", "Łódź" → "lodz". Other scripts keep their letters (lower-cased where they have case).
 */

const DIACRITICS = /[\u0300-\u036f]/g;
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/gu;
const NON_ASCII = /[\u0080-\uffff]/;

/** Letters that NFD leaves whole but a reader treats as a base letter with a stroke or a ligature. */
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ƒ: 'f',
  ǥ: 'g',
  ɨ: 'i',
  ʉ: 'u',
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'g');

/** The search key of a name or a query ("" when it has no letter or digit). */
export function normaliseName(text: string): string {
  let s = text.toLowerCase();
  if (NON_ASCII.test(s)) {
    s = s
      .normalize('NFD')
      .replace(DIACRITICS, '')
      .replace(FOLDABLE, (c) => FOLDS[c] ?? c);
    // Recompose what NFD split apart outside Latin (Hangul syllables, Indic clusters): shorter keys, same matches.
    s = s.normalize('NFC');
  }
  return s.replace(SEPARATORS, ' ').trim();
}
