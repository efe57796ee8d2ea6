/**
 * Stemmers for lower-case ASCII words. Two are kept because the choice is measured, not assumed (bench/toolsearch.ts
 * reports both, and `light` is the default): Porter (M. F. Porter, "An algorithm for suffix stripping", 1980: the
 * original five steps, not Porter2) conflates aggressively ("generalization" -> "gener"); `light` only folds the
 * inflections that separate a task's wording from a tool's ("files" / "file", "searching" / "search",
 * "created" / "create") and leaves derivations alone, so it over-merges less on vocabularies it was never tried on.
 * Words that are not plain ASCII letters (identifiers with digits, other scripts) are returned unchanged.
 */
export type StemmerName = 'none' | 'light' | 'porter';

const ASCII_WORD = /^[a-z]+$/;

export function stemmerFor(name: StemmerName): (w: string) => string {
  if (name === 'porter') return porterStem;
  if (name === 'light') return lightStem;
  return (w) => w;
}

// ------------------------------------------------------------------------------------------------ light

/**
 * Inflectional stemming in the spirit of Harman's S-stemmer (1991) plus -ing/-ed, built from Porter's steps 1a-1c
 * and 5a so that the forms of one word meet: "searching" / "searches" / "search" -> "search", "created" /
 * "creates" / "create" -> "creat", "queries" / "query" -> "queri", "images" / "image" -> "imag". Short words are
 * protected (no step leaves fewer than 3 letters, and 1a needs 4): "bus", "gas", "ios", "uses" -> "use".
 */
export function lightStem(w: string): string {
  if (w.length <= 2 || !ASCII_WORD.test(w)) return w;
  let s = w.length > 3 ? step1a(w) : w;
  const b = step1b(s);
  if (b.length >= 3) s = b;
  s = step1c(s);
  if (s.endsWith('e') && s.length > 4) {
    const stem = s.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) s = stem;
  }
  return s;
}

// ----------------------------------------------------------------------------------------------- Porter

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** m(): the number of VC sequences in w[0..end). */
function measure(w: string, end = w.length): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isConsonant(w, i)) i++;
  }
  return n;
}

function hasVowel(w: string, end = w.length): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: the stem ends cvc, where the second c is not w, x or y. */
function endsCvc(w: string, end = w.length): boolean {
  if (end < 3) return false;
  const c = w[end - 1];
  return isConsonant(w, end - 3) && !isConsonant(w, end - 2) && isConsonant(w, end - 1) && c !== 'w' && c !== 'x' && c !== 'y';
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (w.endsWith('ss')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  let stem: string | null = null;
  if (w.endsWith('ed') && hasVowel(w, w.length - 2)) stem = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) stem = w.slice(0, -3);
  if (stem === null) return w;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w, w.length - 1) ? `${w.slice(0, -1)}i` : w;
}

const STEP2: ReadonlyArray<[string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['abli', 'able'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'],
];
const STEP3: ReadonlyArray<[string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

function replaceSuffix(w: string, rules: ReadonlyArray<[string, string]>, minMeasure: number): string {
  for (const [suffix, repl] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      return measure(stem) > minMeasure ? stem + repl : w;
    }
  }
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (measure(stem) <= 1) return w;
    if (suffix === 'ion' && !/[st]$/.test(stem)) return w;
    return stem;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}

export function porterStem(w: string): string {
  if (w.length <= 2 || !ASCII_WORD.test(w)) return w;
  let s = step1c(step1b(step1a(w)));
  s = replaceSuffix(s, STEP2, 0);
  s = replaceSuffix(s, STEP3, 0);
  return step5(step4(s));
}
