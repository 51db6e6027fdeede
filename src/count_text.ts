/** `1 file`, `2 files`: a count with its noun in the singular or the plural, as English says it. */
export function counted(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
