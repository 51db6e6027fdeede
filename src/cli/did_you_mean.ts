/**
 * Suggestions for a mistyped command, subcommand or option: the known word
 * closest to what was typed, when it is close enough to be the one meant.
 */

/** The candidate closest to `typed` by edit distance, or null when none is near (at most 2 edits, fewer for short words). */
export function closestWord(typed: string, candidates: Iterable<string>): string | null {
  const limit = Math.min(2, Math.max(1, Math.floor(typed.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : null;
}

/** ` (did you mean X?)` for the closest candidate, or "" when none is near. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const word = closestWord(typed, candidates);
  return word === null ? "" : ` (did you mean ${word}?)`;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[i].push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2][j - 2] + 1);
      }
      rows[i].push(distance);
    }
  }
  return rows[a.length][b.length];
}
