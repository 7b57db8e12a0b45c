// talisman ships no type declarations; only the two modules used here are declared.
declare module 'talisman/metrics/jaro-winkler' {
  const jaroWinkler: (a: string, b: string) => number;
  export = jaroWinkler;
}
declare module 'talisman/phonetics/double-metaphone' {
  const doubleMetaphone: (word: string) => [string, string];
  export = doubleMetaphone;
}
