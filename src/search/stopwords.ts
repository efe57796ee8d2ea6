/**
 * English function words dropped from tool text and queries alike. Deliberately small (~120 words): articles,
 * pronouns, auxiliaries, prepositions, conjunctions, and the politeness and filler of task texts ("please", "could",
 * "want"). No content word is here, not even frequent tool verbs ("get", "list", "create", "find", "search",
 * "file"): those carry meaning in tool names, and IDF already down-weights them where they are common. bm25s's
 * default is scikit-learn's 318-word list, which also removes words such as "find", "show", "system", "fire" or
 * "bill"; the corpus-adaptive IDF does that job without losing them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a an the and or but nor so yet if then than else when while where whether because as of at by for from in into
  on onto off out over under up down to with within without about above below after before between through during
  via per is are was were be been being am do does did doing done have has had having will would shall should can
  could may might must i me my mine myself we our ours you your yours he him his she her hers it its they them
  their theirs this that these those there here what which who whom whose why how all any each every some such no
  not only own same too very just also please kindly want wants wanted need needs would let lets tell give
  etc e g ie eg ive dont doesnt cant wont s t`.split(/\s+/).filter(Boolean),
);
